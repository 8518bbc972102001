/* Cgroup (v2) helpers for the tests that run programs in cgroups made for them. */
#ifndef USERBPF_TESTS_TEST_CGROUP_H
#define USERBPF_TESTS_TEST_CGROUP_H

#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

/* The cgroup2 mount point, or "" (mountinfo's fifth field where the type is cgroup2). */
static inline void cgroup2_mount(char *mnt, size_t size)
{
	char line[2048], m[1024];
	FILE *f = fopen("/proc/self/mountinfo", "re");

	mnt[0] = 0;
	while (f && fgets(line, sizeof(line), f)) {
		const char *dash = strstr(line, " - ");

		if (dash && !strncmp(dash + 3, "cgroup2 ", 8) &&
		    sscanf(line, "%*s %*s %*s %*s %1023s", m) == 1) {
			snprintf(mnt, size, "%s", m);
			break;
		}
	}
	if (f)
		fclose(f);
}

/* This process's cgroup (v2) directory under the cgroup2 mount, into dir ("<mount>/a/b", no
 * slash at the end): 0, or -1 where no cgroup2 mount shows it. */
static inline int own_cgroup_dir(char *dir, size_t size)
{
	char mnt[1024], line[4096] = "";
	FILE *f = fopen("/proc/self/cgroup", "re");

	while (f && fgets(line, sizeof(line), f) && strncmp(line, "0::/", 4))
		line[0] = 0;
	if (f)
		fclose(f);
	line[strcspn(line, "\n")] = 0;
	cgroup2_mount(mnt, sizeof(mnt));
	if (!mnt[0] || strncmp(line, "0::/", 4))
		return -1;
	snprintf(dir, size, "%s%s", mnt, strcmp(line + 3, "/") ? line + 3 : "");
	return 0;
}

/* Writes s to the file at path (a cgroup's control file): 0, or -1. */
static inline int write_str(const char *path, const char *s)
{
	int fd = open(path, O_WRONLY | O_CLOEXEC), ok;

	if (fd < 0)
		return -1;
	ok = write(fd, s, strlen(s)) == (ssize_t)strlen(s);
	close(fd);
	return ok ? 0 : -1;
}

#endif
