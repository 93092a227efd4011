/* archive: see archive.h.  libzip writes to a temporary file beside the target and renames
 * it on zip_close(), so a failed or interrupted write never leaves a half zip behind. */
#include "archive.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
#include <zip.h>

/* Between the producer and the compressing thread: what is written and not yet read.  A
 * waiting side is woken only once a quarter of it is there to read or to fill: waking the
 * other thread for every 8 KiB libzip reads costs more than the copying. */
#define STREAM_BUFFER (1024 * 1024)
#define STREAM_WAKE   (STREAM_BUFFER / 4)

/* A streamed entry: a ring buffer filled through a FILE (fopencookie) and drained by a
 * libzip source callback running inside zip_close() on the writer's thread. */
struct stream {
	pthread_mutex_t lock;
	pthread_cond_t cond;
	char *ring;
	size_t head, len; /* unread bytes: ring[head..head+len) modulo STREAM_BUFFER */
	uint64_t written, read;
	bool closed;	  /* the producer fclose()d it: end of the entry */
	bool gone;	  /* libzip will read no more (done or failed): writes are dropped */
	bool aborted;	  /* the writer is discarded: reads fail */
	bool thread_done; /* the writer thread has returned */
	bool producer_waits, consumer_waits;
	zip_error_t error;
};

/* An entry added after archive_writer_start(): appended by _finish(). */
struct late_entry {
	char *name;
	char *path; /* a file, or: */
	void *data;
	size_t len;
};

struct archive_writer {
	zip_t *zip;
	char *path;
	struct progress *progress;
	struct stream *stream;
	bool started, joined;
	pthread_t thread;
	char *thread_err; /* why the thread's zip_close() failed */
	struct late_entry *late;
	size_t nlate, late_cap;
};

static const char *zip_errstr(int code)
{
	static __thread char buf[256];
	zip_error_t e;
	zip_error_init_with_code(&e, code);
	snprintf(buf, sizeof(buf), "%s", zip_error_strerror(&e));
	zip_error_fini(&e);
	return buf;
}

bool archive_name_is_safe(const char *name)
{
	if (!name || !*name || name[0] == '/' || strchr(name, '\\'))
		return false;
	/* Reject any ".." path component. */
	for (const char *p = name; *p;) {
		size_t len = strcspn(p, "/");
		if (len == 2 && p[0] == '.' && p[1] == '.')
			return false;
		p += len;
		while (*p == '/')
			p++;
	}
	return true;
}

struct archive_writer *archive_writer_new(const char *zip_path)
{
	int err = 0;
	zip_t *z = zip_open(zip_path, ZIP_CREATE | ZIP_TRUNCATE, &err);
	if (!z) {
		pc_err("cannot create %s: %s", zip_path, zip_errstr(err));
		return NULL;
	}
	struct archive_writer *w = xcalloc(1, sizeof(*w));
	w->zip = z;
	w->path = xstrdup(zip_path);
	return w;
}

static int add_source(struct archive_writer *w, const char *name, zip_source_t *src)
{
	if (!archive_name_is_safe(name)) {
		zip_source_free(src);
		return pc_err("refusing archive entry name '%s'", name);
	}
	zip_int64_t idx = zip_file_add(w->zip, name, src, ZIP_FL_OVERWRITE | ZIP_FL_ENC_UTF_8);
	if (idx < 0) {
		zip_source_free(src);
		return pc_err("cannot add %s to %s: %s", name, w->path, zip_strerror(w->zip));
	}
	/* Deflate: what PerfView and every unzip read. */
	if (zip_set_file_compression(w->zip, idx, ZIP_CM_DEFLATE, 6) < 0)
		return pc_err("cannot set compression for %s: %s", name, zip_strerror(w->zip));
	return 0;
}

static struct late_entry *add_late(struct archive_writer *w, const char *name)
{
	grow_array((void **)&w->late, &w->late_cap, w->nlate + 1, sizeof(*w->late));
	struct late_entry *e = &w->late[w->nlate++];
	memset(e, 0, sizeof(*e));
	e->name = xstrdup(name);
	return e;
}

int archive_writer_add_file(struct archive_writer *w, const char *name, const char *src_path)
{
	struct stat st;
	if (stat(src_path, &st) < 0)
		return pc_err_errno("cannot add %s to the archive", src_path);
	if (!S_ISREG(st.st_mode))
		return pc_err("cannot add %s to the archive: not a regular file", src_path);
	if (w->started) {
		if (!archive_name_is_safe(name))
			return pc_err("refusing archive entry name '%s'", name);
		add_late(w, name)->path = xstrdup(src_path);
		return 0;
	}
	zip_source_t *src = zip_source_file(w->zip, src_path, 0, -1);
	if (!src)
		return pc_err("cannot read %s: %s", src_path, zip_strerror(w->zip));
	return add_source(w, name, src);
}

int archive_writer_add_buffer(struct archive_writer *w, const char *name, const void *data,
			      size_t len)
{
	/* libzip may read the buffer at zip_close(): give it its own copy. */
	void *copy = xmalloc(len);
	memcpy(copy, data, len);
	if (w->started) {
		if (!archive_name_is_safe(name)) {
			free(copy);
			return pc_err("refusing archive entry name '%s'", name);
		}
		struct late_entry *e = add_late(w, name);
		e->data = copy;
		e->len = len;
		return 0;
	}
	zip_source_t *src = zip_source_buffer(w->zip, copy, len, 1);
	if (!src) {
		free(copy);
		return pc_err("cannot add %s: %s", name, zip_strerror(w->zip));
	}
	return add_source(w, name, src);
}

static void on_progress(zip_t *z, double done, void *ud)
{
	progress_update(ud, (uint64_t)(done * 100));
}

static int close_zip(struct archive_writer *w)
{
	w->progress = progress_new("writing archive", 100);
	zip_register_progress_callback_with_state(w->zip, 0.01, on_progress, NULL, w->progress);
	int r = 0;
	if (zip_close(w->zip) < 0) {
		r = pc_err("cannot write %s: %s", w->path, zip_strerror(w->zip));
		zip_discard(w->zip);
	}
	w->zip = NULL;
	progress_free(w->progress);
	w->progress = NULL;
	return r;
}

/* --- streaming -------------------------------------------------------------------- */

static ssize_t stream_write(void *cookie, const char *buf, size_t size)
{
	struct stream *s = cookie;
	size_t left = size;
	pthread_mutex_lock(&s->lock);
	while (left && !s->gone) {
		if (s->len == STREAM_BUFFER) {
			s->producer_waits = true;
			while (s->len > STREAM_BUFFER - STREAM_WAKE && !s->gone)
				pthread_cond_wait(&s->cond, &s->lock);
			s->producer_waits = false;
			continue;
		}
		size_t tail = (s->head + s->len) % STREAM_BUFFER;
		size_t n = STREAM_BUFFER - s->len;
		if (n > STREAM_BUFFER - tail)
			n = STREAM_BUFFER - tail;
		if (n > left)
			n = left;
		memcpy(s->ring + tail, buf, n);
		s->len += n;
		s->written += n;
		buf += n;
		left -= n;
		if (s->consumer_waits && s->len >= STREAM_WAKE)
			pthread_cond_broadcast(&s->cond);
	}
	pthread_mutex_unlock(&s->lock);
	return (ssize_t)size; /* once the archive failed, the rest is dropped (see archive.h) */
}

static int stream_close(void *cookie)
{
	struct stream *s = cookie;
	pthread_mutex_lock(&s->lock);
	s->closed = true;
	pthread_cond_broadcast(&s->cond);
	pthread_mutex_unlock(&s->lock);
	return 0;
}

static zip_int64_t stream_read(struct stream *s, char *out, zip_uint64_t size)
{
	pthread_mutex_lock(&s->lock);
	if (!s->len) {
		s->consumer_waits = true;
		while (s->len < STREAM_WAKE && !s->closed && !s->aborted)
			pthread_cond_wait(&s->cond, &s->lock);
		s->consumer_waits = false;
	}
	zip_int64_t r;
	if (s->aborted) {
		zip_error_set(&s->error, ZIP_ER_INTERNAL, ECANCELED);
		r = -1;
	} else {
		size_t n = s->len < size ? s->len : (size_t)size;
		if (n > STREAM_BUFFER - s->head)
			n = STREAM_BUFFER - s->head;
		memcpy(out, s->ring + s->head, n);
		s->head = (s->head + n) % STREAM_BUFFER;
		s->len -= n;
		s->read += n;
		if (s->producer_waits && s->len <= STREAM_BUFFER - STREAM_WAKE)
			pthread_cond_broadcast(&s->cond);
		r = (zip_int64_t)n;
	}
	pthread_mutex_unlock(&s->lock);
	return r;
}

/* libzip's source protocol: open once, read until 0, no size known beforehand. */
static zip_int64_t stream_source(void *ud, void *data, zip_uint64_t len, zip_source_cmd_t cmd)
{
	struct stream *s = ud;
	switch (cmd) {
	case ZIP_SOURCE_OPEN:
	case ZIP_SOURCE_CLOSE:
		return 0;
	case ZIP_SOURCE_READ:
		return stream_read(s, data, len);
	case ZIP_SOURCE_STAT: {
		if (len < sizeof(zip_stat_t))
			return -1;
		zip_stat_t *st = data;
		zip_stat_init(st);
		st->mtime = time(NULL);
		st->valid |= ZIP_STAT_MTIME;
		return sizeof(*st);
	}
	case ZIP_SOURCE_ERROR:
		return zip_error_to_data(&s->error, data, len);
	case ZIP_SOURCE_FREE:
		pthread_mutex_lock(&s->lock);
		s->gone = true;
		pthread_cond_broadcast(&s->cond);
		pthread_mutex_unlock(&s->lock);
		return 0;
	case ZIP_SOURCE_SUPPORTS:
		return zip_source_make_command_bitmap(ZIP_SOURCE_OPEN, ZIP_SOURCE_READ,
						      ZIP_SOURCE_CLOSE, ZIP_SOURCE_STAT,
						      ZIP_SOURCE_ERROR, ZIP_SOURCE_FREE, -1);
	default:
		zip_error_set(&s->error, ZIP_ER_OPNOTSUPP, 0);
		return -1;
	}
}

static void stream_free(struct stream *s)
{
	if (!s)
		return;
	pthread_mutex_destroy(&s->lock);
	pthread_cond_destroy(&s->cond);
	zip_error_fini(&s->error);
	free(s->ring);
	free(s);
}

FILE *archive_writer_add_stream(struct archive_writer *w, const char *name)
{
	if (w->started || w->stream) {
		pc_err("cannot add %s: one stream, added before the archive starts", name);
		return NULL;
	}
	struct stream *s = xcalloc(1, sizeof(*s));
	pthread_mutex_init(&s->lock, NULL);
	pthread_cond_init(&s->cond, NULL);
	zip_error_init(&s->error);
	s->ring = xmalloc(STREAM_BUFFER);
	cookie_io_functions_t io = {.write = stream_write, .close = stream_close};
	FILE *f = fopencookie(s, "w", io);
	if (!f) {
		pc_err_errno("cannot stream %s", name);
		stream_free(s);
		return NULL;
	}
	/* w owns s from here; libzip owns the source (and may call it until discarded). */
	w->stream = s;
	zip_source_t *src = zip_source_function(w->zip, stream_source, s);
	if (!src)
		pc_err("cannot add %s: %s", name, zip_strerror(w->zip));
	if (!src || add_source(w, name, src) < 0) {
		s->aborted = s->closed = true;
		fclose(f);
		return NULL;
	}
	return f;
}

static void *write_thread(void *arg)
{
	struct archive_writer *w = arg;
	if (zip_close(w->zip) < 0) {
		w->thread_err = xstrdup(zip_strerror(w->zip));
		zip_discard(w->zip);
	}
	w->zip = NULL;
	if (w->stream) {
		pthread_mutex_lock(&w->stream->lock);
		w->stream->gone = true;
		w->stream->thread_done = true;
		pthread_cond_broadcast(&w->stream->cond);
		pthread_mutex_unlock(&w->stream->lock);
	}
	return NULL;
}

int archive_writer_start(struct archive_writer *w)
{
	if (w->started)
		return pc_err("%s: already started", w->path);
	/* Signals stay with the caller's thread. */
	sigset_t all, old;
	sigfillset(&all);
	pthread_sigmask(SIG_SETMASK, &all, &old);
	int rc = pthread_create(&w->thread, NULL, write_thread, w);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	if (rc)
		return pc_err("cannot start writing %s: %s", w->path, strerror(rc));
	w->started = true;
	return 0;
}

/* Waits for the thread, with progress: how much of the stream it has compressed. */
static void join_thread(struct archive_writer *w, bool show)
{
	struct stream *s = w->stream;
	if (s) {
		struct progress *p = show ? progress_new("writing archive", 100) : NULL;
		pthread_mutex_lock(&s->lock);
		s->closed = true; /* in case the producer did not say so */
		pthread_cond_broadcast(&s->cond);
		while (!s->thread_done) {
			struct timespec t;
			clock_gettime(CLOCK_REALTIME, &t);
			t.tv_nsec += 100 * 1000000L;
			if (t.tv_nsec >= 1000000000L) {
				t.tv_sec++;
				t.tv_nsec -= 1000000000L;
			}
			pthread_cond_timedwait(&s->cond, &s->lock, &t);
			if (p && s->written)
				progress_update(p, s->read * 100 / s->written);
		}
		pthread_mutex_unlock(&s->lock);
		progress_free(p);
	}
	pthread_join(w->thread, NULL);
	w->joined = true;
}

/* Reopens the written archive and appends the late entries (libzip copies the others
 * without recompressing them). */
static int append_late(struct archive_writer *w)
{
	int err = 0;
	w->zip = zip_open(w->path, 0, &err);
	if (!w->zip)
		return pc_err("cannot reopen %s: %s", w->path, zip_errstr(err));
	for (size_t i = 0; i < w->nlate; i++) {
		struct late_entry *e = &w->late[i];
		zip_source_t *src;
		if (e->path) {
			src = zip_source_file(w->zip, e->path, 0, -1);
		} else {
			src = zip_source_buffer(w->zip, e->data, e->len, 1);
			if (src)
				e->data = NULL; /* libzip frees it */
		}
		if (!src || add_source(w, e->name, src) < 0) {
			if (!src)
				pc_err("cannot add %s: %s", e->name, zip_strerror(w->zip));
			zip_discard(w->zip);
			w->zip = NULL;
			return -1;
		}
	}
	return close_zip(w);
}

int archive_writer_finish(struct archive_writer *w)
{
	if (!w->started)
		return close_zip(w);
	if (w->joined)
		return pc_err("%s: already finished", w->path);
	join_thread(w, true);
	if (w->thread_err)
		return pc_err("cannot write %s: %s", w->path, w->thread_err);
	return w->nlate ? append_late(w) : 0;
}

void archive_writer_free(struct archive_writer *w)
{
	if (!w)
		return;
	if (w->started && !w->joined) {
		/* discard: make the thread's zip_close() fail, or undo what it wrote */
		if (w->stream) {
			pthread_mutex_lock(&w->stream->lock);
			w->stream->aborted = true;
			pthread_cond_broadcast(&w->stream->cond);
			pthread_mutex_unlock(&w->stream->lock);
		}
		join_thread(w, false);
		if (!w->thread_err)
			unlink(w->path);
	}
	if (w->zip)
		zip_discard(w->zip);
	stream_free(w->stream);
	for (size_t i = 0; i < w->nlate; i++) {
		free(w->late[i].name);
		free(w->late[i].path);
		free(w->late[i].data);
	}
	free(w->late);
	free(w->thread_err);
	free(w->path);
	free(w);
}

struct archive_reader {
	zip_t *zip;
	char *path;
	size_t count;
};

struct archive_reader *archive_reader_open(const char *zip_path)
{
	int err = 0;
	zip_t *z = zip_open(zip_path, ZIP_RDONLY, &err);
	if (!z) {
		if (err == ZIP_ER_NOENT || err == ZIP_ER_OPEN)
			pc_err_errno("cannot open %s", zip_path);
		else
			pc_err("cannot open %s: %s", zip_path, zip_errstr(err));
		return NULL;
	}
	struct archive_reader *r = xcalloc(1, sizeof(*r));
	r->zip = z;
	r->path = xstrdup(zip_path);
	zip_int64_t n = zip_get_num_entries(z, 0);
	r->count = n > 0 ? (size_t)n : 0;
	return r;
}

void archive_reader_free(struct archive_reader *r)
{
	if (!r)
		return;
	zip_discard(r->zip);
	free(r->path);
	free(r);
}

size_t archive_reader_count(const struct archive_reader *r)
{
	return r->count;
}

const char *archive_reader_name(const struct archive_reader *r, size_t i)
{
	const char *n = zip_get_name(r->zip, i, ZIP_FL_ENC_GUESS);
	return n ? n : "";
}

uint64_t archive_reader_size(const struct archive_reader *r, size_t i)
{
	zip_stat_t st;
	if (zip_stat_index(r->zip, i, 0, &st) < 0 || !(st.valid & ZIP_STAT_SIZE))
		return 0;
	return st.size;
}

long archive_reader_find(const struct archive_reader *r, const char *name)
{
	size_t nl = strlen(name);
	for (size_t i = 0; i < r->count; i++) {
		const char *n = archive_reader_name(r, i);
		size_t l = strlen(n);
		if (!strcmp(n, name))
			return (long)i;
		if (l > nl && n[l - nl - 1] == '/' && !strcmp(n + l - nl, name))
			return (long)i;
	}
	return -1;
}

static ssize_t entry_read(void *cookie, char *buf, size_t size)
{
	zip_int64_t n = zip_fread(cookie, buf, size);
	if (n < 0) {
		errno = EIO;
		return -1;
	}
	return n;
}

static int entry_close(void *cookie)
{
	return zip_fclose(cookie);
}

FILE *archive_reader_open_entry(struct archive_reader *r, size_t i)
{
	if (i >= r->count) {
		pc_err("no entry %zu in %s", i, r->path);
		return NULL;
	}
	zip_file_t *zf = zip_fopen_index(r->zip, i, 0);
	if (!zf) {
		pc_err("cannot read %s in %s: %s", archive_reader_name(r, i), r->path,
		       zip_strerror(r->zip));
		return NULL;
	}
	cookie_io_functions_t io = {.read = entry_read, .close = entry_close};
	FILE *f = fopencookie(zf, "r", io);
	if (!f) {
		zip_fclose(zf);
		pc_err_errno("cannot stream %s", archive_reader_name(r, i));
		return NULL;
	}
	return f;
}

static int extract_one(struct archive_reader *r, size_t i, const char *dest_dir)
{
	const char *name = archive_reader_name(r, i);
	if (!archive_name_is_safe(name))
		return pc_err("refusing unsafe entry name '%s' in %s", name, r->path);
	char *out = xasprintf("%s/%s", dest_dir, name);
	int ret = -1;
	size_t len = strlen(out);
	if (out[len - 1] == '/') {
		ret = mkdir_p(out, 0755);
		goto done;
	}
	char *slash = strrchr(out, '/');
	*slash = 0;
	if (mkdir_p(out, 0755) < 0)
		goto done;
	*slash = '/';
	int fd = open(out, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0644);
	if (fd < 0) {
		pc_err_errno("cannot create %s", out);
		goto done;
	}
	zip_file_t *zf = zip_fopen_index(r->zip, i, 0);
	if (!zf) {
		pc_err("cannot read %s in %s: %s", name, r->path, zip_strerror(r->zip));
		close(fd);
		goto done;
	}
	char buf[65536];
	zip_int64_t n;
	ret = 0;
	while ((n = zip_fread(zf, buf, sizeof(buf))) > 0)
		if (write_all(fd, buf, n) < 0) {
			ret = -1;
			break;
		}
	if (n < 0)
		ret = pc_err("cannot read %s in %s: %s", name, r->path, zip_file_strerror(zf));
	zip_fclose(zf);
	if (close(fd) < 0 && ret == 0)
		ret = pc_err_errno("cannot write %s", out);
done:
	free(out);
	return ret;
}

int archive_reader_extract_all(struct archive_reader *r, const char *dest_dir)
{
	for (size_t i = 0; i < r->count; i++)
		if (extract_one(r, i, dest_dir) < 0)
			return -1;
	return 0;
}
