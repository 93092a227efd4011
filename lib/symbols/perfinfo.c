/* perfinfo: see perfinfo.h.  Fields are cut from the right (base, then mvid), so a path
 * holding ';' still parses. */
#include "perfinfo.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

struct perfinfo {
	char *text;
	struct perfinfo_image *images;
	size_t nimages, cap, bad;
};

static bool parse_base(const char *s, uint64_t *out)
{
	if (!strcmp(s, "(nil)")) {
		*out = 0;
		return true;
	}
	if (s[0] == '0' && (s[1] == 'x' || s[1] == 'X'))
		s += 2;
	if (!*s)
		return false;
	char *end;
	errno = 0;
	unsigned long long v = strtoull(s, &end, 16);
	if (*end || errno)
		return false;
	*out = v;
	return true;
}

/* Returns false for a malformed line. */
static bool parse_line(struct perfinfo *p, char *line)
{
	char *semi = strchr(line, ';');
	if (!semi || semi == line)
		return false;
	*semi = 0;
	char *value = semi + 1;
	if (strcmp(line, "ImageLoad"))
		return true; /* other event types: nothing to keep yet */
	size_t l = strlen(value);
	if (l && value[l - 1] == ';')
		value[--l] = 0;
	char *b = strrchr(value, ';');
	if (!b)
		return false;
	*b = 0;
	char *m = strrchr(value, ';');
	if (!m || m == value)
		return false;
	*m = 0;
	struct perfinfo_image img = {.path = value, .mvid = m + 1};
	if (!parse_base(b + 1, &img.base))
		return false;
	grow_array((void **)&p->images, &p->cap, p->nimages + 1, sizeof(*p->images));
	p->images[p->nimages++] = img;
	return true;
}

struct perfinfo *perfinfo_load_fd(int fd)
{
	size_t len;
	char *text = read_fd_seen(fd, &len);
	if (!text)
		return NULL;
	struct perfinfo *p = xcalloc(1, sizeof(*p));
	p->text = text;
	char *line = text, *end = text + len;
	while (line < end) {
		char *nl = memchr(line, '\n', end - line);
		if (nl)
			*nl = 0;
		size_t l = strlen(line);
		if (l && line[l - 1] == '\r')
			line[--l] = 0;
		if (l && !parse_line(p, line))
			p->bad++;
		line = nl ? nl + 1 : end;
	}
	return p;
}

struct perfinfo *perfinfo_load(const char *path)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		pc_err_errno("cannot open %s", path);
		return NULL;
	}
	struct perfinfo *p = perfinfo_load_fd(fd);
	close(fd);
	return p;
}

void perfinfo_free(struct perfinfo *p)
{
	if (!p)
		return;
	free(p->images);
	free(p->text);
	free(p);
}

size_t perfinfo_nr_images(const struct perfinfo *p)
{
	return p->nimages;
}

const struct perfinfo_image *perfinfo_image_at(const struct perfinfo *p, size_t i)
{
	return i < p->nimages ? &p->images[i] : NULL;
}

const struct perfinfo_image *perfinfo_find_image(const struct perfinfo *p, const char *path)
{
	for (size_t i = p->nimages; i > 0; i--)
		if (!strcmp(p->images[i - 1].path, path))
			return &p->images[i - 1];
	return NULL;
}

size_t perfinfo_bad_lines(const struct perfinfo *p)
{
	return p->bad;
}
