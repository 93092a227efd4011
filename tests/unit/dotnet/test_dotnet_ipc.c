/* Unit tests for dotnet_ipc: finding and trusting a target's diagnostics socket, the
 * protocol against a real .NET runtime (no restart: perf maps turned on and off in a running
 * app), and the answers a broken or hostile server could give.
 *
 * The real app is tests/workloads/dotnet, built (and cached) by its build.sh; without the
 * .NET SDK those parts skip.  The hostile-server cases use a socket this test serves itself
 * next to a real process (`sleep`) whose TMPDIR points at it: the runtime never sends such
 * answers, but whatever sits at that path could. */
#include "base/log.h"
#include "dotnet/dotnet_ipc.h"
#include "dotnet/dotnet_maps.h"
#include "test.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define CHECK_ERR(substr)                                                                          \
	do {                                                                                       \
		if (!strstr(pc_strerror(), substr)) {                                              \
			fprintf(stderr, "%s:%d: error \"%s\" does not say \"%s\"\n", __FILE__,     \
				__LINE__, pc_strerror(), substr);                                  \
			test_failures++;                                                           \
		}                                                                                  \
	} while (0)

static unsigned long long start_time(pid_t pid)
{
	char path[64];
	snprintf(path, sizeof(path), "/proc/%d/stat", (int)pid);
	char *s = read_file(path, NULL);
	if (!s)
		return 0;
	char *p = strrchr(s, ')');
	unsigned long long v = 0;
	for (int field = 2; p && *p; p++)
		if (*p == ' ' && ++field == 22) {
			v = strtoull(p + 1, NULL, 10);
			break;
		}
	free(s);
	return v;
}

/* Runs argv with exactly envp; returns once exec happened (the CLOEXEC pipe closes). */
static pid_t spawn(char *const argv[], char *const envp[], int *stdout_fd)
{
	int sync[2], out[2] = {-1, -1};
	if (pipe2(sync, O_CLOEXEC) < 0 || (stdout_fd && pipe(out) < 0))
		return -1;
	pid_t pid = fork();
	if (pid == 0) {
		if (stdout_fd) {
			dup2(out[1], 1);
			close(out[0]);
			close(out[1]);
		}
		execve(argv[0], argv, envp);
		_exit(127);
	}
	close(sync[1]);
	char c;
	while (read(sync[0], &c, 1) < 0 && errno == EINTR)
		;
	close(sync[0]);
	if (stdout_fd) {
		close(out[1]);
		*stdout_fd = out[0];
	}
	return pid;
}

static void stop(pid_t pid)
{
	kill(pid, SIGTERM);
	waitpid(pid, NULL, 0);
}

/* ---- a process without a runtime -------------------------------------------------------- */

static void test_no_runtime(void)
{
	pid_t self = getpid();
	CHECK(!dotnet_runtime_present(self));
	CHECK(!dotnet_perfmap_enabled_by_env(self) || getenv("DOTNET_PerfMapEnabled"));
	char *path = dotnet_socket_path(self);
	CHECK(path == NULL);
	free(path);
	CHECK_ERR("no diagnostics socket dotnet-diagnostic-");
	CHECK(dotnet_enable_perfmap(self, DOTNET_PERFMAP_ALL) < 0);
	CHECK_ERR("no diagnostics socket");
	CHECK(dotnet_prepare_target(self, true, NULL) == 0); /* a log line only, nothing to undo */
	dotnet_finish_target(self);
	/* a pid that does not exist */
	CHECK(dotnet_socket_path(0x3ffffff) == NULL);
	CHECK_ERR("no process");
	CHECK(!dotnet_runtime_present(0x3ffffff));
}

/* ---- a server that answers what it is told to ------------------------------------------- */

struct fake {
	int listen_fd;
	unsigned char reply[256];
	size_t reply_len;
	unsigned char request[256];
	size_t request_len;
};

static void *fake_serve(void *arg)
{
	struct fake *f = arg;
	int c = accept(f->listen_fd, NULL, NULL);
	if (c < 0)
		return NULL;
	f->request_len = 0;
	ssize_t r = read(c, f->request, sizeof(f->request));
	if (r > 0)
		f->request_len = (size_t)r;
	if (f->reply_len && write(c, f->reply, f->reply_len) < 0)
		perror("fake server write");
	close(c);
	return NULL;
}

/* An answer: header with size (0: the real size), command set/id, then payload. */
static void fake_reply(struct fake *f, unsigned size, uint8_t set, uint8_t id, const void *payload,
		       size_t len)
{
	memcpy(f->reply, "DOTNET_IPC_V1", 14);
	size = size ? size : (unsigned)(20 + len);
	f->reply[14] = size & 0xff;
	f->reply[15] = size >> 8;
	f->reply[16] = set;
	f->reply[17] = id;
	f->reply[18] = f->reply[19] = 0;
	if (len)
		memcpy(f->reply + 20, payload, len);
	f->reply_len = 20 + len;
}

static pid_t fake_target;

static int call_enable(struct fake *f)
{
	pthread_t t;
	pthread_create(&t, NULL, fake_serve, f);
	int r = dotnet_enable_perfmap(fake_target, DOTNET_PERFMAP_ALL);
	pthread_join(t, NULL);
	return r;
}

static int call_info(struct fake *f, struct dotnet_process_info *info)
{
	pthread_t t;
	pthread_create(&t, NULL, fake_serve, f);
	int r = dotnet_process_info(fake_target, info);
	pthread_join(t, NULL);
	return r;
}

static int listen_at(const char *path)
{
	int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	struct sockaddr_un a = {.sun_family = AF_UNIX};
	snprintf(a.sun_path, sizeof(a.sun_path), "%s", path);
	if (fd < 0 || bind(fd, (struct sockaddr *)&a, sizeof(a)) < 0 || listen(fd, 4) < 0) {
		perror(path);
		if (fd >= 0)
			close(fd);
		return -1;
	}
	return fd;
}

static void test_hostile_server(void)
{
	char dir[] = "/tmp/pc-dnipc.XXXXXX";
	if (!mkdtemp(dir)) {
		CHECK(!"mkdtemp");
		return;
	}
	char env_tmpdir[128];
	snprintf(env_tmpdir, sizeof(env_tmpdir), "TMPDIR=%s", dir);
	char *argv[] = {"/bin/sleep", "60", NULL};
	char *envp[] = {env_tmpdir, NULL};
	pid_t child = spawn(argv, envp, NULL);
	CHECK(child > 0);
	if (child <= 0)
		goto out;
	fake_target = child;
	unsigned long long key = start_time(child);
	char sock[256], stale[256], other[256];
	snprintf(sock, sizeof(sock), "%s/dotnet-diagnostic-%d-%llu-socket", dir, (int)child, key);
	snprintf(stale, sizeof(stale), "%s/dotnet-diagnostic-%d-%llu-socket", dir, (int)child,
		 key + 1000);
	snprintf(other, sizeof(other), "%s/dotnet-diagnostic-%d-%llu-socket", dir, (int)child + 1,
		 key);

	/* A stale socket of an earlier process with the same pid (a later start time than
	 * ours cannot be ours either) and another pid's socket: neither is taken. */
	int stale_fd = listen_at(stale), other_fd = listen_at(other);
	struct fake f = {.listen_fd = listen_at(sock)};
	CHECK(f.listen_fd >= 0 && stale_fd >= 0 && other_fd >= 0);
	char *path = dotnet_socket_path(child);
	char want[300];
	snprintf(want, sizeof(want), "/proc/%d/root%s", (int)child, sock);
	CHECK_STR(path, want);
	free(path);
	/* No libcoreclr.so mapped, but a socket of its own: a single-file app's runtime. */
	CHECK(dotnet_runtime_present(child));

	/* What a good EnablePerfMap looks like on the wire, and a good answer. */
	uint32_t zero = 0;
	fake_reply(&f, 0, 0xff, 0x00, &zero, 4);
	CHECK(call_enable(&f) == 0);
	static const unsigned char enable_req[24] = {'D', 'O', 'T', 'N', 'E', 'T', '_', 'I',
						     'P', 'C', '_', 'V', '1', 0,   24,	0,
						     4,	  5,   0,   0,	 1,   0,   0,	0};
	CHECK(f.request_len == 24 && !memcmp(f.request, enable_req, 24));

	/* A runtime older than .NET 8 answers "unknown command". */
	unsigned char hr[4] = {0x85, 0x13, 0x13, 0x80};
	fake_reply(&f, 0, 0xff, 0xff, hr, 4);
	CHECK(call_enable(&f) < 0);
	CHECK_ERR("older than .NET 8");
	/* A failure HRESULT in an OK answer. */
	unsigned char fail[4] = {0x05, 0x40, 0x00, 0x80};
	fake_reply(&f, 0, 0xff, 0x00, fail, 4);
	CHECK(call_enable(&f) < 0);
	CHECK_ERR("HRESULT 0x80004005");
	/* Not the protocol at all. */
	fake_reply(&f, 0, 0xff, 0x00, &zero, 4);
	memcpy(f.reply, "HTTP/1.1 200 OK", 14);
	CHECK(call_enable(&f) < 0);
	CHECK_ERR("does not start with DOTNET_IPC_V1");
	/* Sizes that lie: smaller than the header, larger than what is sent. */
	fake_reply(&f, 10, 0xff, 0x00, &zero, 4);
	CHECK(call_enable(&f) < 0);
	CHECK_ERR("smaller than its header");
	fake_reply(&f, 1000, 0xff, 0x00, &zero, 4);
	CHECK(call_enable(&f) < 0);
	CHECK_ERR("closed the connection");
	/* An OK without a result code. */
	fake_reply(&f, 0, 0xff, 0x00, NULL, 0);
	CHECK(call_enable(&f) < 0);
	CHECK_ERR("without a result code");

	/* ProcessInfo2: a string longer than the answer, then a good one with UTF-16 that is
	 * not ASCII (e-acute, and U+1F600 as a surrogate pair). */
	struct dotnet_process_info info;
	unsigned char p[200] = {0};
	size_t n = 24;
	p[n] = 0xe8, p[n + 1] = 0x03; /* 1000 characters */
	fake_reply(&f, 0, 0xff, 0x00, p, n + 4);
	CHECK(call_info(&f, &info) < 0);
	CHECK_ERR("does not fit");
	memset(p, 0, sizeof(p));
	p[0] = 42; /* pid */
	n = 24;
	static const uint16_t cmd[] = {'a', 0xe9, 0xd83d, 0xde00, 0};
	const uint16_t *strs[] = {cmd, u"Linux", u"x64", u"app", u"10.0.1"};
	const size_t lens[] = {5, 6, 4, 4, 7};
	for (size_t i = 0; i < 5; i++) {
		p[n] = (unsigned char)lens[i];
		n += 4;
		for (size_t j = 0; j < lens[i]; j++, n += 2)
			p[n] = strs[i][j] & 0xff, p[n + 1] = strs[i][j] >> 8;
	}
	fake_reply(&f, 0, 0xff, 0x00, p, n);
	CHECK(call_info(&f, &info) == 0);
	CHECK_EQ_U64(info.nspid, 42);
	CHECK_STR(info.command_line, "a\xc3\xa9\xf0\x9f\x98\x80");
	CHECK_STR(info.version, "10.0.1");
	CHECK_STR(info.entry_assembly, "app");
	dotnet_process_info_free(&info);
	/* Cut inside the strings. */
	fake_reply(&f, 0, 0xff, 0x00, p, 30);
	CHECK(call_info(&f, &info) < 0);
	CHECK_ERR("ProcessInfo2");

	/* A socket that is not the target's: another owner, or a symlink in its place. */
	if (geteuid() == 0) {
		CHECK(chown(sock, 65534, 65534) == 0);
		CHECK(dotnet_enable_perfmap(child, DOTNET_PERFMAP_ALL) < 0);
		CHECK_ERR("owned by uid 65534, not the target's uid 0");
	}
	unlink(sock);
	CHECK(symlink(stale, sock) == 0);
	CHECK(dotnet_enable_perfmap(child, DOTNET_PERFMAP_ALL) < 0);
	CHECK_ERR("not a socket");
	unlink(sock);
	/* Only the stale socket is left: with no exact start time, the newest is tried. */
	path = dotnet_socket_path(child);
	snprintf(want, sizeof(want), "/proc/%d/root%s", (int)child, stale);
	CHECK_STR(path, want);
	free(path);

	close(f.listen_fd);
	close(stale_fd);
	close(other_fd);
	unlink(stale);
	unlink(other);
	stop(child);

	/* TMPDIR through a symlink: not followed (it could lead anywhere outside the target). */
	char link[160], env_link[200];
	snprintf(link, sizeof(link), "%s/link", dir);
	CHECK(symlink(dir, link) == 0);
	snprintf(env_link, sizeof(env_link), "TMPDIR=%s", link);
	char *envp2[] = {env_link, NULL};
	child = spawn(argv, envp2, NULL);
	CHECK(dotnet_socket_path(child) == NULL);
	CHECK_ERR("/link");
	stop(child);
	unlink(link);
out:
	rm_rf(dir);
}

/* ---- the real runtime ------------------------------------------------------------------- */

/* Builds (or finds) the app; NULL when there is no SDK. */
static char *app_dll(void)
{
	const char *src = getenv("TEST_SRCDIR");
	char *cmd = xasprintf("sh '%s/workloads/dotnet/build.sh'", src ? src : "tests");
	FILE *p = popen(cmd, "r");
	free(cmd);
	char line[4096] = "";
	if (!p || !fgets(line, sizeof(line), p))
		line[0] = 0;
	int status = p ? pclose(p) : -1;
	line[strcspn(line, "\n")] = 0;
	if (WIFEXITED(status) && WEXITSTATUS(status) == 77) {
		printf("%s\n", line);
		return NULL;
	}
	if (status != 0 || !line[0]) {
		fprintf(stderr, "building the .NET test app failed\n");
		test_failures++;
		return NULL;
	}
	return xstrdup(line);
}

/* When the last app was started: a map file older than that is another process's. */
static struct timespec app_started;

/* Starts `dotnet APP 30` with one extra environment variable (or none) and waits for its
 * "ready <pid>" line. */
static pid_t start_app(const char *dll, const char *extra_env)
{
	static char *dotnet;
	if (!dotnet) {
		FILE *p = popen("command -v dotnet", "r");
		char buf[1024] = "";
		if (p && fgets(buf, sizeof(buf), p))
			buf[strcspn(buf, "\n")] = 0;
		if (p)
			pclose(p);
		dotnet = xstrdup(buf);
	}
	char *argv[] = {dotnet, (char *)dll, "30", NULL};
	char *path = xasprintf("PATH=%s", getenv("PATH") ? getenv("PATH") : "/usr/bin:/bin");
	char *envp[] = {path, "DOTNET_CLI_TELEMETRY_OPTOUT=1", "DOTNET_NOLOGO=1", (char *)extra_env,
			NULL};
	int out;
	clock_gettime(CLOCK_REALTIME, &app_started);
	pid_t pid = spawn(argv, envp, &out);
	free(path);
	if (pid < 0)
		return -1;
	char buf[256];
	size_t n = 0;
	struct pollfd pfd = {.fd = out, .events = POLLIN};
	while (n < sizeof(buf) - 1 && !memchr(buf, '\n', n) && poll(&pfd, 1, 60000) > 0) {
		ssize_t r = read(out, buf + n, sizeof(buf) - 1 - n);
		if (r <= 0)
			break;
		n += (size_t)r;
	}
	buf[n] = 0;
	close(out);
	int ready = -1;
	if (sscanf(buf, "ready %d", &ready) != 1 || ready != pid) {
		fprintf(stderr, "the .NET app did not get ready: '%s'\n", buf);
		test_failures++;
		stop(pid);
		return -1;
	}
	return pid;
}

static bool file_contains(const char *path, const char *needle)
{
	size_t len;
	char *s = read_file(path, &len);
	bool found = s && memmem(s, len, needle, strlen(needle));
	free(s);
	return found;
}

/* Does the process hold path open (the runtime keeps its map files open while enabled)? */
static bool holds_open(pid_t pid, const char *path)
{
	char dir[64];
	snprintf(dir, sizeof(dir), "/proc/%d/fd", (int)pid);
	bool found = false;
	for (int fd = 0; fd < 1024 && !found; fd++) {
		char link[96], target[512];
		snprintf(link, sizeof(link), "%s/%d", dir, fd);
		ssize_t n = readlink(link, target, sizeof(target) - 1);
		if (n > 0) {
			target[n] = 0;
			found = !strcmp(target, path);
		}
	}
	return found;
}

/* Did the app started last write path?  Not merely "does it exist": with 32768 pids, a
 * file left in /tmp by an earlier process of the same pid is there now and then. */
static bool app_wrote(pid_t pid, const char *path)
{
	struct stat st;
	if (stat(path, &st) < 0)
		return false;
	if (holds_open(pid, path))
		return true;
	/* Whole seconds: file systems' timestamps can lag the clock by a tick. */
	return st.st_mtim.tv_sec >= app_started.tv_sec;
}

/* Removes what the runtime leaves in /tmp: its maps, and its diagnostics socket and debugger
 * pipes, which it does not remove when it is stopped by a signal. */
static void remove_maps(pid_t pid)
{
	static const char *const prefixes[] = {"dotnet-diagnostic-", "clr-debug-pipe-"};
	DIR *d = opendir("/tmp");
	for (struct dirent *e; d && (e = readdir(d));)
		for (size_t i = 0; i < ARRAY_SIZE(prefixes); i++) {
			char prefix[64];
			snprintf(prefix, sizeof(prefix), "%s%d-", prefixes[i], (int)pid);
			if (str_startswith(e->d_name, prefix))
				unlinkat(dirfd(d), e->d_name, 0);
		}
	if (d)
		closedir(d);
	char path[64];
	snprintf(path, sizeof(path), "/tmp/perf-%d.map", (int)pid);
	unlink(path);
	snprintf(path, sizeof(path), "/tmp/jit-%d.dump", (int)pid);
	unlink(path);
	snprintf(path, sizeof(path), "/tmp/perfinfo-%d.map", (int)pid);
	unlink(path);
}

static void test_real_runtime(const char *dll)
{
	/* No restart: an app started without DOTNET_PerfMapEnabled writes no maps ... */
	pid_t pid = start_app(dll, NULL);
	if (pid < 0)
		return;
	char map[64], dump[64];
	snprintf(map, sizeof(map), "/tmp/perf-%d.map", (int)pid);
	snprintf(dump, sizeof(dump), "/tmp/jit-%d.dump", (int)pid);
	CHECK(!app_wrote(pid, map));
	CHECK(dotnet_runtime_present(pid));
	CHECK(!dotnet_perfmap_enabled_by_env(pid));
	struct dotnet_process_info info;
	CHECK(dotnet_process_info(pid, &info) == 0);
	CHECK_EQ_U64(info.nspid, (uint64_t)pid);
	CHECK_STR(info.entry_assembly, "pc-dotnet-app");
	CHECK_STR(info.os, "Linux");
	CHECK(info.version && info.version[0] >= '1' && info.version[0] <= '9');
	CHECK(info.command_line && strstr(info.command_line, "pc-dotnet-app.dll 30"));
	dotnet_process_info_free(&info);

	/* ... until collect's hook asks.  No map file there yet: both are asked for; the
	 * methods compiled before are in the map at once, and ReadyToRun framework code is
	 * named in the jitdump. */
	struct dotnet_maps m;
	CHECK(dotnet_maps_ensure(pid, true, NULL, &m) == 1);
	CHECK(m.runtime && !m.had_perfmap && !m.had_jitdump);
	CHECK_EQ_U64(m.asked, DOTNET_PERFMAP_ALL);
	CHECK(m.disable_after);
	CHECK(file_contains(map, "PcDotnetApp.HotLoop::Spin(float64)"));
	CHECK(file_contains(map, "PcDotnetApp.HotLoop::Churn(int32)"));
	CHECK(file_contains(dump, "[System.Private.CoreLib]"));
	CHECK(file_contains(dump, "[PreJIT]"));
	CHECK(holds_open(pid, map));
	CHECK(holds_open(pid, dump));
	/* At the end the runtime is told to stop: it closes its files. */
	dotnet_maps_restore(&m);
	CHECK(!holds_open(pid, map));
	CHECK(!holds_open(pid, dump));
	dotnet_maps_restore(&m); /* a second time: nothing left to do */

	/* Asked again, with the map of the first time still there: the jitdump alone, so the
	 * map is never truncated (the runtime would rewrite methods only, no stubs). */
	size_t map_len;
	char *map_before = read_file(map, &map_len);
	CHECK(map_before != NULL);
	CHECK(dotnet_prepare_target(pid, true, NULL) == 1);
	CHECK(holds_open(pid, dump));
	CHECK(!holds_open(pid, map));
	size_t map_len_now;
	char *map_now = read_file(map, &map_len_now);
	CHECK(map_now && map_len_now == map_len && !memcmp(map_now, map_before, map_len));
	free(map_now);
	dotnet_finish_target(pid);
	CHECK(!holds_open(pid, dump));
	map_now = read_file(map, &map_len_now);
	CHECK(map_now && map_len_now == map_len && !memcmp(map_now, map_before, map_len));
	free(map_now);
	free(map_before);

	/* With the IPC turned off: a warning, nothing enabled. */
	remove_maps(pid);
	CHECK(dotnet_prepare_target(pid, false, NULL) == 0);
	CHECK(access(map, F_OK) < 0);
	stop(pid);
	remove_maps(pid);

	/* Started with DOTNET_PerfMapEnabled=1: the map is on and stays on, every line of it
	 * kept; a jitdump the runtime gave up (.NET 10 does at startup) is restarted alone,
	 * and stays on, since DisablePerfMap would stop the map too. */
	pid = start_app(dll, "DOTNET_PerfMapEnabled=1");
	if (pid < 0)
		return;
	snprintf(map, sizeof(map), "/tmp/perf-%d.map", (int)pid);
	snprintf(dump, sizeof(dump), "/tmp/jit-%d.dump", (int)pid);
	CHECK(dotnet_perfmap_enabled_by_env(pid));
	CHECK_EQ_U64(dotnet_perfmap_env_type(pid), DOTNET_PERFMAP_ALL);
	CHECK(file_contains(map, "PcDotnetApp.HotLoop::Spin(float64)"));
	map_before = read_file(map, &map_len);
	bool dump_was_open = holds_open(pid, dump);
	CHECK(dotnet_maps_ensure(pid, true, NULL, &m) == 1);
	CHECK(m.had_perfmap && m.had_jitdump == dump_was_open);
	CHECK_EQ_U64(m.asked, dump_was_open ? 0 : DOTNET_PERFMAP_JITDUMP);
	CHECK(!m.disable_after);
	CHECK(file_contains(dump, "[PreJIT]"));
	dotnet_maps_restore(&m);
	CHECK(holds_open(pid, map));
	map_now = read_file(map, &map_len_now);
	/* The runtime appends (the methods it had compiled, again): what was there stays. */
	CHECK(map_before && map_now && map_len_now >= map_len &&
	      !memcmp(map_now, map_before, map_len));
	free(map_now);
	free(map_before);
	stop(pid);
	remove_maps(pid);

	/* DOTNET_PerfMapEnabled=3, a perf map alone by choice: nothing is asked (a jitdump
	 * could not be stopped again without stopping the map); a warning says so. */
	pid = start_app(dll, "DOTNET_PerfMapEnabled=3");
	if (pid < 0)
		return;
	snprintf(map, sizeof(map), "/tmp/perf-%d.map", (int)pid);
	snprintf(dump, sizeof(dump), "/tmp/jit-%d.dump", (int)pid);
	CHECK(dotnet_maps_ensure(pid, true, NULL, &m) == 0);
	CHECK(m.had_perfmap && !m.asked);
	CHECK(!app_wrote(pid, dump));
	/* A jitdump an earlier process of this pid left behind (CI's /tmp has such) is not
	 * taken for the app's. */
	int stale = open(dump, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
	if (stale >= 0) {
		struct timespec hour_ago[2] = {{.tv_sec = app_started.tv_sec - 3600},
					       {.tv_sec = app_started.tv_sec - 3600}};
		CHECK(futimens(stale, hour_ago) == 0);
		close(stale);
		CHECK(!app_wrote(pid, dump));
	}
	stop(pid);
	remove_maps(pid);

	/* Diagnostics turned off in the app: the reason is named, nothing is enabled. */
	pid = start_app(dll, "DOTNET_EnableDiagnostics=0");
	if (pid < 0)
		return;
	char *path = dotnet_socket_path(pid);
	CHECK(path == NULL);
	free(path);
	CHECK_ERR("DOTNET_EnableDiagnostics=0 in its environment");
	CHECK(dotnet_prepare_target(pid, true, NULL) == 0);
	stop(pid);
	remove_maps(pid);
}

/* The protocol's string, as every command encodes it: any valid UTF-8 (a non-ASCII value and
 * a character outside the BMP go as UTF-16, a pair for the latter), NULL as none, invalid
 * UTF-8 refused with the payload left as it was. */
static void test_put_string(void)
{
	struct bytebuf b = {0};
	CHECK(dotnet_ipc_put_string(&b, "a\xc3\xa9\xf0\x9f\x98\x80") == 0);
	static const uint8_t want[] = {5, 0, 0, 0, 'a', 0, 0xe9, 0, 0x3d, 0xd8, 0x00, 0xde, 0, 0};
	CHECK(b.len == sizeof(want) && !memcmp(b.data, want, sizeof(want)));
	b.len = 0;
	CHECK(dotnet_ipc_put_string(&b, "") == 0);
	CHECK(b.len == 6 && b.data[0] == 1 && !b.data[4] && !b.data[5]); /* just the NUL */
	b.len = 0;
	CHECK(dotnet_ipc_put_string(&b, NULL) == 0);
	CHECK(b.len == 4 && !b.data[0]); /* no string */
	CHECK(dotnet_ipc_put_string(&b, "bad\xc3(") < 0);
	CHECK(b.len == 4);
	CHECK_ERR("not valid UTF-8");
	bytebuf_free(&b);
}

int main(void)
{
	signal(SIGPIPE, SIG_IGN);
	test_put_string();
	test_no_runtime();
	test_hostile_server();
	char *dll = app_dll();
	if (dll) {
		test_real_runtime(dll);
		free(dll);
	} else if (!test_failures) {
		printf("SKIP: real-runtime cases (no .NET SDK)\n");
	}
	return TEST_DONE();
}
