/* buildid: see buildid.h. */
#include "buildid.h"
#include "base/span.h"

#include "base/util.h"

#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <libelf.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static int take_desc(const void *desc, size_t descsz, uint8_t id[BUILDID_MAX], uint8_t *size)
{
	if (descsz == 0 || descsz > BUILDID_MAX)
		return pc_err("build-id note has %zu bytes (expected 1..%d)", descsz, BUILDID_MAX);
	memset(id, 0, BUILDID_MAX);
	memcpy(id, desc, descsz);
	*size = (uint8_t)descsz;
	return 0;
}

/* 1 = found, 0 = not in this chunk, -1 = a bad build-id note. */
static int scan_note_data(Elf_Data *data, uint8_t id[BUILDID_MAX], uint8_t *size)
{
	size_t off = 0, name_off, desc_off;
	GElf_Nhdr nh;
	while (off < data->d_size &&
	       (off = gelf_getnote(data, off, &nh, &name_off, &desc_off)) > 0) {
		if (nh.n_type != NT_GNU_BUILD_ID || nh.n_namesz != 4 ||
		    memcmp((const char *)data->d_buf + name_off, "GNU", 4))
			continue;
		/* gelf_getnote() checked that name and desc lie inside d_buf. */
		return take_desc((const char *)data->d_buf + desc_off, nh.n_descsz, id, size) ? -1
											      : 1;
	}
	return 0;
}

static int scan_sections(Elf *elf, uint8_t id[BUILDID_MAX], uint8_t *size)
{
	Elf_Scn *scn = NULL;
	while ((scn = elf_nextscn(elf, scn))) {
		GElf_Shdr sh;
		if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_NOTE)
			continue;
		Elf_Data *data = elf_getdata(scn, NULL);
		if (!data || !data->d_buf)
			continue;
		int r = scan_note_data(data, id, size);
		if (r)
			return r;
	}
	return 0;
}

static int scan_segments(Elf *elf, uint8_t id[BUILDID_MAX], uint8_t *size)
{
	size_t nphdr;
	if (elf_getphdrnum(elf, &nphdr))
		return 0;
	for (size_t i = 0; i < nphdr; i++) {
		GElf_Phdr ph;
		if (!gelf_getphdr(elf, (int)i, &ph) || ph.p_type != PT_NOTE)
			continue;
		/* elf_getdata_rawchunk() refuses ranges outside the file. */
		Elf_Data *data = elf_getdata_rawchunk(elf, (int64_t)ph.p_offset, ph.p_filesz,
						      ph.p_align == 8 ? ELF_T_NHDR8 : ELF_T_NHDR);
		if (!data || !data->d_buf)
			continue;
		int r = scan_note_data(data, id, size);
		if (r)
			return r;
	}
	return 0;
}

int buildid_read_fd(int fd, uint8_t id[BUILDID_MAX], uint8_t *size)
{
	if (elf_version(EV_CURRENT) == EV_NONE)
		return pc_err("libelf: %s", elf_errmsg(-1));
	/* read, not mapped: a file its owner truncates meanwhile must not SIGBUS us */
	Elf *elf = elf_begin(fd, ELF_C_READ, NULL);
	if (!elf)
		return pc_err("cannot read ELF: %s", elf_errmsg(-1));
	int r;
	if (elf_kind(elf) != ELF_K_ELF)
		r = pc_err("not an ELF file");
	else if ((r = scan_sections(elf, id, size)) == 0 && (r = scan_segments(elf, id, size)) == 0)
		r = pc_err("no GNU build-id note");
	elf_end(elf);
	return r < 0 ? -1 : 0;
}

int buildid_read_path(const char *path, uint8_t id[BUILDID_MAX], uint8_t *size)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return pc_err_errno("%s", path);
	int r = buildid_read_fd(fd, id, size);
	if (r < 0) {
		char why[512];
		snprintf(why, sizeof(why), "%s", pc_strerror());
		pc_err("%s: %s", path, why);
	}
	close(fd);
	return r;
}

int buildid_read_notes_file(const char *path, uint8_t id[BUILDID_MAX], uint8_t *size)
{
	size_t len;
	uint8_t *buf = (uint8_t *)read_file(path, &len);
	if (!buf)
		return -1;
	/* Native-endian Elf{32,64}_Nhdr (same layout): namesz, descsz, type; name and desc are
	 * each padded to 4 bytes. */
	size_t off = 0;
	int r = pc_err("%s: no GNU build-id note", path);
	while (len - off >= 12) {
		uint32_t namesz = load_le32(buf + off), descsz = load_le32(buf + off + 4);
		uint32_t type = load_le32(buf + off + 8);
		size_t name_pad = ((size_t)namesz + 3) & ~(size_t)3;
		size_t desc_pad = ((size_t)descsz + 3) & ~(size_t)3;
		off += 12;
		if (name_pad > len - off || desc_pad > len - off - name_pad) {
			r = pc_err("%s: note at offset %zu runs past the end", path, off - 12);
			break;
		}
		if (type == NT_GNU_BUILD_ID && namesz == 4 && !memcmp(buf + off, "GNU", 4)) {
			r = take_desc(buf + off + name_pad, descsz, id, size);
			break;
		}
		off += name_pad + desc_pad;
	}
	free(buf);
	return r;
}

int buildid_read_kernel(uint8_t id[BUILDID_MAX], uint8_t *size)
{
	return buildid_read_notes_file("/sys/kernel/notes", id, size);
}

void buildid_to_hex(const uint8_t *id, uint8_t size, char *out)
{
	static const char hex[] = "0123456789abcdef";
	if (size > BUILDID_MAX)
		size = BUILDID_MAX;
	for (unsigned i = 0; i < size; i++) {
		out[2 * i] = hex[id[i] >> 4];
		out[2 * i + 1] = hex[id[i] & 15];
	}
	out[2 * size] = '\0';
}
