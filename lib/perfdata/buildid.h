/* buildid: the GNU build-id (NT_GNU_BUILD_ID note) of an ELF file, of the running kernel
 * (/sys/kernel/notes) and of a loaded module (/sys/module/<name>/notes/.note.gnu.build-id).
 *
 * Every function fills id[0..*size) (at most BUILDID_MAX bytes, the rest of id[] zeroed) and
 * returns 0, or returns -1 with a pc_err() message: not ELF, no build-id note, note larger
 * than BUILDID_MAX, unreadable file.  Lengths inside the notes are checked against the data.
 */
#ifndef PC_BUILDID_H
#define PC_BUILDID_H

#include <stddef.h>
#include <stdint.h>

#define BUILDID_MAX 20 /* perf's BUILD_ID_SIZE: SHA1; shorter ids (MD5, UUID) also fit */

int buildid_read_fd(int fd, uint8_t id[BUILDID_MAX], uint8_t *size);
int buildid_read_path(const char *path, uint8_t id[BUILDID_MAX], uint8_t *size);
/* A raw sequence of ELF notes, as /sys/kernel/notes and a module's notes file hold. */
int buildid_read_notes_file(const char *path, uint8_t id[BUILDID_MAX], uint8_t *size);
/* The running kernel: /sys/kernel/notes. */
int buildid_read_kernel(uint8_t id[BUILDID_MAX], uint8_t *size);
/* Lower-case hex, as perf prints it; out must hold 2 * BUILDID_MAX + 1 bytes. */
void buildid_to_hex(const uint8_t *id, uint8_t size, char *out);

#endif
