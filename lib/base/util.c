/* util: see util.h. */
#include "util.h"

#include <dirent.h>
#include <sched.h>
#include <signal.h>
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/file.h>
#include <sys/sysmacros.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

static __thread char err_buf[1024];

/* The message is one line for a terminal and a log: what a target named in it (a path, a
 * process name) is made printable. */
static void verr(const char *fmt, va_list ap, int errnum)
{
	/* Formatted aside: an argument may be the message so far (pc_strerror()), wrapped. */
	char msg[sizeof(err_buf)];
	int n = vsnprintf(msg, sizeof(msg), fmt, ap);
	if (errnum && n >= 0 && (size_t)n < sizeof(msg))
		snprintf(msg + n, sizeof(msg) - n, ": %s", strerror(errnum));
	snprintf(err_buf, sizeof(err_buf), "%s", str_printable(msg));
}

int pc_err(const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	verr(fmt, ap, 0);
	va_end(ap);
	return -1;
}

int pc_err_errno(const char *fmt, ...)
{
	int e = errno;
	va_list ap;
	va_start(ap, fmt);
	verr(fmt, ap, e);
	va_end(ap);
	errno = e;
	return -1;
}

const char *pc_strerror(void)
{
	return err_buf;
}

static void oom(void)
{
	fputs("perfcollect-c: out of memory\n", stderr);
	abort();
}

void *xmalloc(size_t n)
{
	void *p = malloc(n ? n : 1);
	if (!p)
		oom();
	return p;
}

void *xcalloc(size_t n, size_t size)
{
	void *p = calloc(n ? n : 1, size ? size : 1);
	if (!p)
		oom();
	return p;
}

void *xrealloc(void *p, size_t n)
{
	p = realloc(p, n ? n : 1);
	if (!p)
		oom();
	return p;
}

char *xstrdup(const char *s)
{
	char *p = strdup(s);
	if (!p)
		oom();
	return p;
}

char *xstrndup(const char *s, size_t n)
{
	char *p = strndup(s, n);
	if (!p)
		oom();
	return p;
}

char *xasprintf(const char *fmt, ...)
{
	va_list ap;
	char *p;
	va_start(ap, fmt);
	if (vasprintf(&p, fmt, ap) < 0)
		oom();
	va_end(ap);
	return p;
}

void grow_array(void **buf, size_t *cap, size_t n, size_t esz)
{
	if (n <= *cap)
		return;
	size_t c = *cap ? *cap : 16;
	while (c < n)
		c *= 2;
	*buf = xrealloc(*buf, c * esz);
	*cap = c;
}

char *read_fd_into(int fd, char *buf, size_t cap, uint64_t max, size_t *len)
{
	size_t n = 0;
	while (n < max) {
		if (n + 1 >= cap)
			buf = xrealloc(buf, cap *= 2);
		size_t room = cap - n - 1;
		if (room > max - n)
			room = (size_t)(max - n);
		ssize_t r = read(fd, buf + n, room);
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0) {
			pc_err_errno("read failed");
			free(buf);
			return NULL;
		}
		if (r == 0)
			break;
		n += r;
	}
	buf[n] = 0;
	if (len)
		*len = n;
	return buf;
}

char *read_fd_max(int fd, uint64_t max, size_t *len)
{
	size_t cap = 1 << 16;
	return read_fd_into(fd, xmalloc(cap), cap, max, len);
}

bool pread_all(int fd, void *buf, size_t n, uint64_t off)
{
	size_t done = 0;
	while (done < n) {
		ssize_t r = pread(fd, (char *)buf + done, n - done, (off_t)(off + done));
		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			return false;
		done += (size_t)r;
	}
	return true;
}

char *read_fd(int fd, size_t *len)
{
	return read_fd_max(fd, UINT64_MAX, len);
}

char *read_fd_seen(int fd, size_t *len)
{
	struct stat st;
	bool sized = fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && st.st_size > 0;
	return read_fd_max(fd, sized ? (uint64_t)st.st_size : UINT64_MAX, len);
}

char *read_file(const char *path, size_t *len)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		pc_err_errno("cannot open %s", path);
		return NULL;
	}
	char *buf = read_fd(fd, len);
	if (!buf)
		pc_err_errno("cannot read %s", path);
	close(fd);
	return buf;
}

int write_all(int fd, const void *buf, size_t len)
{
	const char *p = buf;
	while (len) {
		ssize_t r = write(fd, p, len);
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0)
			return pc_err_errno("write failed");
		p += r;
		len -= r;
	}
	return 0;
}

char *make_temp_dir(const char *what)
{
	const char *tmp = getenv("TMPDIR");
	char *tmpl = xasprintf("%s/perfcollect-%s.XXXXXX", tmp && *tmp ? tmp : "/tmp", what);
	if (!mkdtemp(tmpl)) {
		pc_err_errno("cannot create a temporary directory %s", tmpl);
		free(tmpl);
		return NULL;
	}
	return tmpl;
}

int mkdir_p(const char *path, unsigned mode)
{
	char *tmp = xstrdup(path);
	for (char *p = tmp + 1; *p; p++) {
		if (*p != '/')
			continue;
		*p = 0;
		if (mkdir(tmp, mode) < 0 && errno != EEXIST) {
			pc_err_errno("cannot create directory %s", tmp);
			free(tmp);
			return -1;
		}
		*p = '/';
	}
	int r = 0;
	if (mkdir(tmp, mode) < 0 && errno != EEXIST)
		r = pc_err_errno("cannot create directory %s", tmp);
	free(tmp);
	return r;
}

/* Empties the directory dirfd (closed here), entry by entry relative to it: a directory
 * below is opened O_NOFOLLOW, so an entry swapped for a symlink is unlinked, not entered.
 * shown names it in messages. */
static int empty_dir(int dirfd, const char *shown)
{
	DIR *d = fdopendir(dirfd);
	if (!d) {
		close(dirfd);
		return pc_err_errno("cannot list %s", shown);
	}
	int r = 0;
	for (struct dirent *de; (de = readdir(d));) {
		if (!strcmp(de->d_name, ".") || !strcmp(de->d_name, ".."))
			continue;
		if (unlinkat(dirfd, de->d_name, 0) == 0 || errno == ENOENT)
			continue;
		if (errno != EISDIR && errno != EPERM) {
			r = pc_err_errno("cannot remove %s/%s", shown, de->d_name);
			continue;
		}
		int sub =
		    openat(dirfd, de->d_name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
		char *sub_shown = xasprintf("%s/%s", shown, de->d_name);
		if (sub < 0 || empty_dir(sub, sub_shown) < 0)
			r = sub < 0 ? pc_err_errno("cannot open %s", sub_shown) : -1;
		else if (unlinkat(dirfd, de->d_name, AT_REMOVEDIR) < 0 && errno != ENOENT)
			r = pc_err_errno("cannot remove %s", sub_shown);
		free(sub_shown);
	}
	closedir(d);
	return r;
}

int rm_rf_at(int dirfd, const char *name, const char *shown)
{
	if (unlinkat(dirfd, name, 0) == 0 || errno == ENOENT)
		return 0;
	int fd = errno == EISDIR || errno == EPERM
		     ? openat(dirfd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)
		     : -1;
	if (fd < 0)
		return pc_err_errno("cannot remove %s", shown);
	if (empty_dir(fd, shown) < 0)
		return -1;
	if (unlinkat(dirfd, name, AT_REMOVEDIR) < 0 && errno != ENOENT)
		return pc_err_errno("cannot remove %s", shown);
	return 0;
}

int rm_rf(const char *path)
{
	/* The last component is taken relative to its parent, as every step below it. */
	char *parent = xstrdup(path);
	size_t n = strlen(parent);
	while (n > 1 && parent[n - 1] == '/') /* "dir/" */
		parent[--n] = 0;
	char *slash = strrchr(parent, '/');
	const char *name = slash ? slash + 1 : parent;
	int pfd = AT_FDCWD;
	if (slash) {
		*slash = 0;
		pfd = open(slash == parent ? "/" : parent, O_PATH | O_DIRECTORY | O_CLOEXEC);
	}
	int r = pfd == -1
		    ? (errno == ENOENT ? 0 : pc_err_errno("cannot open the directory of %s", path))
		    : rm_rf_at(pfd, name, path);
	if (pfd >= 0)
		close(pfd);
	free(parent);
	return r;
}

int env_size(const char *name, uint64_t *out)
{
	const char *v = getenv(name);
	uint64_t size;
	if (!v || !*v)
		return 0;
	if (parse_size(v, &size) < 0 || !size)
		return pc_err("%s=%s is not a size (e.g. 4G)", name, v);
	*out = size;
	return 1;
}

int parse_size(const char *s, uint64_t *out)
{
	char *end;
	errno = 0;
	if (!s || !*s || *s == '-')
		return pc_err("invalid size '%s'", s ? s : "");
	unsigned long long v = strtoull(s, &end, 10);
	if (errno || end == s)
		return pc_err("invalid size '%s'", s);
	uint64_t mult = 1;
	if (*end) {
		switch (*end | 0x20) {
		case 'b':
			mult = 1;
			break;
		case 'k':
			mult = 1ULL << 10;
			break;
		case 'm':
			mult = 1ULL << 20;
			break;
		case 'g':
			mult = 1ULL << 30;
			break;
		default:
			return pc_err("invalid size '%s' (use N, NK, NM or NG)", s);
		}
		end++;
		if ((mult != 1 && (*end | 0x20) == 'b'))
			end++;
		if (*end)
			return pc_err("invalid size '%s' (use N, NK, NM or NG)", s);
	}
	if (v > UINT64_MAX / mult)
		return pc_err("size '%s' is too large", s);
	*out = v * mult;
	return 0;
}

int parse_int(const char *s, long min, long max, long *out)
{
	char *end;
	errno = 0;
	if (!s || !*s)
		return pc_err("expected a number");
	long v = strtol(s, &end, 10);
	if (errno || *end || v < min || v > max)
		return pc_err("invalid number '%s' (expected %ld..%ld)", s, min, max);
	*out = v;
	return 0;
}

bool parse_hex_digits(const char **p, uint64_t *out)
{
	const char *s = *p;
	uint64_t v = 0;
	for (;; s++) {
		int d;
		if (*s >= '0' && *s <= '9')
			d = *s - '0';
		else if (*s >= 'a' && *s <= 'f')
			d = *s - 'a' + 10;
		else if (*s >= 'A' && *s <= 'F')
			d = *s - 'A' + 10;
		else
			break;
		if (v >> 60)
			return false; /* more than 64 bits */
		v = v << 4 | (uint64_t)d;
	}
	if (s == *p)
		return false;
	*out = v;
	*p = s;
	return true;
}

/* How many bytes at p (n of them left) form one printable UTF-8 character; 0 when the
 * first must be escaped (a control character, C1 included, or not UTF-8). */
static size_t printable_len(const unsigned char *p, size_t n)
{
	unsigned c = p[0];
	if (c >= 0x20 && c < 0x7f)
		return 1;
	size_t len = c >= 0xc2 && c <= 0xdf   ? 2
		     : c >= 0xe0 && c <= 0xef ? 3
		     : c >= 0xf0 && c <= 0xf4 ? 4
					      : 0;
	if (!len || n < len)
		return 0;
	for (size_t i = 1; i < len; i++)
		if ((p[i] & 0xc0) != 0x80)
			return 0;
	/* C1 controls (U+0080..U+009F), overlong forms, surrogates, beyond U+10FFFF */
	if ((c == 0xc2 && p[1] < 0xa0) || (c == 0xe0 && p[1] < 0xa0) ||
	    (c == 0xed && p[1] >= 0xa0) || (c == 0xf0 && p[1] < 0x90) ||
	    (c == 0xf4 && p[1] >= 0x90))
		return 0;
	return len;
}

const char *str_printable_n(const char *s, size_t len)
{
	static __thread char *bufs[8];
	static __thread size_t caps[8];
	static __thread unsigned next;
	unsigned slot = next++ % 8;
	size_t need = len * 4 + 1;
	if (caps[slot] < need) {
		bufs[slot] = xrealloc(bufs[slot], need);
		caps[slot] = need;
	}
	char *o = bufs[slot];
	const unsigned char *p = (const unsigned char *)s;
	for (size_t i = 0; i < len;) {
		size_t k = printable_len(p + i, len - i);
		if (k) {
			memcpy(o, p + i, k);
			o += k;
			i += k;
			continue;
		}
		unsigned c = p[i++];
		*o++ = '\\';
		if (c == '\n' || c == '\t' || c == 0x1b) {
			*o++ = c == '\n' ? 'n' : c == '\t' ? 't' : 'e';
		} else {
			static const char hex[] = "0123456789abcdef";
			*o++ = 'x';
			*o++ = hex[c >> 4];
			*o++ = hex[c & 15];
		}
	}
	*o = 0;
	return bufs[slot];
}

uint64_t u64_round(double x)
{
	if (!(x >= 0.5)) /* NaN too */
		return 0;
	if (x >= 18446744073709551615.0) /* 2^64, the nearest double */
		return UINT64_MAX;
	return (uint64_t)(x + 0.5);
}

int64_t i64_round(double x)
{
	if (x != x)
		return 0;
	if (x >= 9223372036854775807.0) /* 2^63 */
		return INT64_MAX;
	if (x <= -9223372036854775808.0)
		return INT64_MIN;
	return (int64_t)(x < 0 ? x - 0.5 : x + 0.5);
}

const char *str_printable(const char *s)
{
	size_t len = strlen(s);
	for (size_t i = 0, k; i < len; i += k)
		if (!(k = printable_len((const unsigned char *)s + i, len - i)))
			return str_printable_n(s, len);
	return s;
}

char *hex_encode(const void *p, size_t n, char *out)
{
	static const char digits[] = "0123456789abcdef";
	const unsigned char *b = p;
	for (size_t i = 0; i < n; i++) {
		out[2 * i] = digits[b[i] >> 4];
		out[2 * i + 1] = digits[b[i] & 15];
	}
	out[2 * n] = 0;
	return out;
}

bool str_startswith(const char *s, const char *prefix)
{
	return strncmp(s, prefix, strlen(prefix)) == 0;
}

bool str_endswith(const char *s, const char *suffix)
{
	size_t a = strlen(s), b = strlen(suffix);
	return a >= b && memcmp(s + a - b, suffix, b) == 0;
}

uint64_t monotonic_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + ts.tv_nsec;
}

int usable_cpus(void)
{
	long n = sysconf(_SC_NPROCESSORS_ONLN);
	cpu_set_t set;
	if (sched_getaffinity(0, sizeof(set), &set) == 0 && CPU_COUNT(&set) < n)
		n = CPU_COUNT(&set);
	return n < 1 ? 1 : n > INT32_MAX ? INT32_MAX : (int)n;
}

int thread_start_nosignals(pthread_t *t, void *(*fn)(void *), void *arg)
{
	sigset_t all, old;
	sigfillset(&all);
	pthread_sigmask(SIG_SETMASK, &all, &old);
	int err = pthread_create(t, NULL, fn, arg);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	return err;
}

struct progress {
	char *what;
	uint64_t total;
	uint64_t last_ns;
	bool tty;
	bool shown;
};

struct progress *progress_new(const char *what, uint64_t total)
{
	struct progress *p = xcalloc(1, sizeof(*p));
	p->what = xstrdup(what);
	p->total = total;
	p->tty = isatty(STDERR_FILENO);
	return p;
}

void progress_update(struct progress *p, uint64_t done)
{
	if (!p || !p->tty)
		return;
	uint64_t now = monotonic_ns();
	if (p->shown && now - p->last_ns < 100000000ULL)
		return;
	p->last_ns = now;
	p->shown = true;
	if (p->total)
		fprintf(stderr, "\r%s: %3u%%", p->what,
			(unsigned)(done >= p->total ? 100 : done * 100 / p->total));
	else
		fprintf(stderr, "\r%s: %llu", p->what, (unsigned long long)done);
}

void progress_free(struct progress *p)
{
	if (!p)
		return;
	if (p->shown)
		fprintf(stderr, "\r\033[K");
	free(p->what);
	free(p);
}

/* The pid /proc/locks names for the flock on (dev, ino); 0 when not found. */
static int flock_holder(dev_t dev, ino_t ino)
{
	char *text = read_file("/proc/locks", NULL);
	int pid = 0;
	for (char *line = text; line && *line && !pid;) {
		char *nl = strchr(line, '\n');
		if (nl)
			*nl = 0;
		unsigned maj, min;
		unsigned long long i;
		int p;
		char kind[16];
		if (sscanf(line, "%*d: %15s %*s %*s %d %x:%x:%llu", kind, &p, &maj, &min, &i) ==
			5 &&
		    !strcmp(kind, "FLOCK") && maj == major(dev) && min == minor(dev) &&
		    i == (unsigned long long)ino)
			pid = p;
		line = nl ? nl + 1 : NULL;
	}
	free(text);
	return pid;
}

int lock_dir(const char *dir, int *holder)
{
	*holder = -1;
	int fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0)
		return pc_err_errno("cannot open %s", dir);
	if (flock(fd, LOCK_EX | LOCK_NB) == 0)
		return fd;
	int e = errno;
	struct stat st;
	if (e == EWOULDBLOCK && fstat(fd, &st) == 0) {
		*holder = flock_holder(st.st_dev, st.st_ino);
		close(fd);
		return pc_err("%s is in use by another process", dir);
	}
	close(fd);
	errno = e;
	return pc_err_errno("cannot lock %s", dir);
}
