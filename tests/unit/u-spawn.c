/* unit tests for common/spawn.c: what the driver and mpcc-tune ask of it */
#include "common/spawn.h"
#include "common/util.h"
#include "tests/unit/test.h"

#include <ctype.h>
#include <dirent.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static char *
run(const char *line, const char *const *env, int nullin)
{
	char *out = test_tmp("u-spawn.out");
	struct spawn s = {.line = line, .out = out, .err = out, .env = env, .nullin = nullin};
	int st = spawn_run(&s);
	char *text = readfile(out, NULL);
	unlink(out);
	free(out);
	if (st) {
		free(text);
		return fmt("exit %d", st);
	}
	return text;
}

TEST(status_is_as_sh_gives_it)
{
	CHECK(spawn_run(&(struct spawn){.line = "exit 3"}) == 3);
	CHECK(spawn_run(&(struct spawn){.line = "kill -TERM $$", .group = 1}) == 128 + SIGTERM);
	char *argv[] = {"/bin/sh", "-c", "exit 5", NULL};
	CHECK(spawn_run(&(struct spawn){.argv = argv}) == 5);
}

TEST(out_and_err_to_one_file_keep_both)
{
	char *s = run("echo one; echo two >&2; echo three", NULL, 0);
	CHECK_STR(s, "one\ntwo\nthree\n");
	free(s);
}

TEST(env_sets_and_unsets)
{
	setenv("U_SPAWN_GONE", "x", 1);
	const char *env[] = {"U_SPAWN_SET=a b", "U_SPAWN_GONE=", NULL};
	char *s = run("echo \"$U_SPAWN_SET:${U_SPAWN_GONE-unset}\"", env, 0);
	CHECK_STR(s, "a b:unset\n");
	free(s);
	unsetenv("U_SPAWN_GONE");
}

TEST(nullin_reads_nothing)
{
	char *s = run("cat; echo end", NULL, 1);
	CHECK_STR(s, "end\n");
	free(s);
}

TEST(a_group_is_live_until_waited_for)
{
	pid_t g[SPAWN_MAX];
	pid_t pid = spawn_start(&(struct spawn){.line = "exit 0", .group = 1});
	CHECK(spawn_groups(g, SPAWN_MAX) == 1 && g[0] == pid);
	int st = -1;
	while (!spawn_poll(pid, &st))
		nanosleep(&(struct timespec){0, 1000000}, NULL);
	CHECK(st == 0);
	CHECK(spawn_groups(g, SPAWN_MAX) == 0);
}

TEST(any_reaps_what_ended)
{
	pid_t pid = spawn_start(&(struct spawn){.line = "exit 7", .group = 1}), got;
	int st = -1;
	while (!(got = spawn_any(&st)))
		nanosleep(&(struct timespec){0, 1000000}, NULL);
	CHECK(got == pid && st == 7);
	pid_t g[1];
	CHECK(spawn_groups(g, 1) == 0);
}

/* does a process of group g run, a zombie aside? (/proc/PID/stat: "pid
 * (comm) state ppid pgrp ...") */
static int
running(pid_t g)
{
	DIR *d = opendir("/proc");
	struct dirent *e;
	int n = 0;
	while (d && (e = readdir(d)) && !n) {
		char path[300], buf[512], state;
		int pgrp;
		FILE *f;
		snprintf(path, sizeof path, "/proc/%s/stat", e->d_name);
		if (!isdigit((unsigned char)e->d_name[0]) || !(f = fopen(path, "r")))
			continue;
		char *paren = fgets(buf, sizeof buf, f) ? strrchr(buf, ')') : NULL;
		n = paren && sscanf(paren + 1, " %c %*d %d", &state, &pgrp) == 2 && pgrp == g &&
		    state != 'Z' && state != 'X';
		fclose(f);
	}
	if (d)
		closedir(d);
	return n;
}

TEST(stop_ends_the_whole_group)
{
	pid_t g[2];
	g[0] = spawn_start(&(struct spawn){.line = "sleep 30 & sleep 30; wait", .group = 1});
	g[1] = spawn_start(&(struct spawn){.line = "trap '' INT; sleep 30", .group = 1});
	time_t t0 = time(NULL);
	spawn_stop(g, 2);
	CHECK(time(NULL) - t0 < 10);
	/* a killed grandchild is a zombie until init reaps it, which on a
	 * loaded machine takes a while: count only processes not yet dead */
	for (int i = 0; i < 1000 && (running(g[0]) || running(g[1])); i++)
		nanosleep(&(struct timespec){0, 10 * 1000 * 1000}, NULL);
	CHECK(!running(g[0]) && !running(g[1]));
	CHECK(spawn_groups(g, 2) == 0);
}

static int hooked;

static void
hook(void)
{
	hooked = 1;
}

TEST(onchild_runs_in_a_forked_child)
{
	spawn_onchild(hook);
	pid_t pid = spawn_fork();
	if (pid == 0)
		_exit(hooked ? 9 : 1);
	CHECK(spawn_wait(pid) == 9 && !hooked);
	spawn_onchild(NULL);
}

int
main(void)
{
	RUN(status_is_as_sh_gives_it);
	RUN(out_and_err_to_one_file_keep_both);
	RUN(env_sets_and_unsets);
	RUN(nullin_reads_nothing);
	RUN(a_group_is_live_until_waited_for);
	RUN(any_reaps_what_ended);
	RUN(stop_ends_the_whole_group);
	RUN(onchild_runs_in_a_forked_child);
	return DONE();
}
