/* cgroup.c — the cgroup helpers: the calling thread's cgroup v2 id and its ancestors', the
 * cgroup array tests, cgroup local storage (the attached program's, and a cgroup's in a
 * BPF_MAP_TYPE_CGRP_STORAGE map), the net_cls class id.
 */
#include <errno.h>
#include <stdio.h>
#include <sys/stat.h>

#include "exec/current_cgroup.h"
#include "exec/helpers/impl.h"
#include "map/cgroup_array.h"
#include "map/cgroup_storage.h"
#include "map/sk_storage.h"

/* The calling thread's cgroup (v2) id, or its ancestor's at level (-1: the cgroup itself; 0 is
 * the root, whose id is 1): the kernel's id is the cgroup directory's inode number in the
 * cgroup2 file system, which /proc/thread-self/cgroup and the cgroup2 mount lead to.  0 when the
 * level is deeper than the cgroup, or when no cgroup2 mount shows the cgroup (only the root's id
 * is known then). */
static u64 current_cgroup_id(int level)
{
	char line[4096], path[4096 + 256], mnt[1024] = "", root[1024] = "";
	const char *rel;
	struct stat st;
	FILE *f;
	int depth = 0, n;
	size_t len;

	f = fopen("/proc/thread-self/cgroup", "re");
	if (!f)
		return 0;
	line[0] = 0;
	while (fgets(line, sizeof(line), f) && strncmp(line, "0::", 3))
		line[0] = 0;
	fclose(f);
	if (strncmp(line, "0::/", 4))
		return 0;
	len = strcspn(line + 3, "\n");
	line[3 + len] = 0;
	rel = line + 3; /* "/a/b" */
	/* the ancestor at level: the path's first level components */
	for (const char *p = rel + 1; *p; p++)
		if (*p == '/')
			depth++;
	if (rel[1])
		depth++;
	if (level > depth)
		return 0;
	if (level >= 0) {
		char *p = line + 3;

		for (n = 0; n < level && p; n++)
			p = strchr(p + 1, '/');
		if (level == 0)
			line[4] = 0; /* "/" */
		else if (p)
			*p = 0; /* "/a/b/c" at level 2: "/a/b" */
	}
	if (!strcmp(rel, "/"))
		return 1;
	f = fopen("/proc/self/mountinfo", "re");
	if (!f)
		return 0;
	while (fgets(path, sizeof(path), f)) {
		char r[1024], m[1024], *dash = strstr(path, " - ");

		if (!dash || strncmp(dash + 3, "cgroup2 ", 8) ||
		    sscanf(path, "%*s %*s %*s %1023s %1023s", r, m) != 2)
			continue;
		strcpy(root, r);
		strcpy(mnt, m);
		break;
	}
	fclose(f);
	if (!mnt[0])
		return 0;
	/* the mount shows the hierarchy from its root (a cgroup namespace's, say) */
	len = strcmp(root, "/") ? strlen(root) : 0;
	if (len && (strncmp(rel, root, len) || (rel[len] && rel[len] != '/')))
		return 0;
	snprintf(path, sizeof(path), "%s%s", mnt, rel + len);
	return stat(path, &st) ? 0 : (u64)st.st_ino;
}

/* bpf_current_task_under_cgroup(map, idx), bpf_skb_under_cgroup(skb, map, idx): 1 when the
 * calling thread's cgroup (which a test run's dummy socket belongs to) is the cgroup array's
 * cgroup at idx or below it, else 0; E2BIG, EAGAIN (cgroup_array.h).  A cgroup is under C
 * exactly when its ancestor at C's level is C. */
static u64 under_cgroup(u64 map, u64 idx)
{
	u64 id;
	int level, err = cgroup_array_get(PTR(map), (u32)idx, &id, &level);

	if (err)
		return (u64)(s64)err;
	return current_cgroup_id(level) == id;
}

u64 h_current_task_under_cgroup(u64 map, u64 idx, u64 a3, u64 a4, u64 a5)
{
	return under_cgroup(map, idx);
}

u64 h_skb_under_cgroup(u64 ctx, u64 map, u64 idx, u64 a4, u64 a5)
{
	return under_cgroup(map, idx);
}

/* bpf_get_local_storage(map, flags): the run's storage of a cgroup storage map; flags are 0
 * (the verifier's). */
u64 h_get_local_storage(u64 map, u64 flags, u64 a3, u64 a4, u64 a5)
{
	return (u64)(uintptr_t)cgroup_storage_get(PTR(map));
}

/* bpf_cgrp_storage_get(map, cgrp, value, flags), bpf_cgrp_storage_delete(map, cgrp): the value
 * the map keeps for the cgroup (src/map/sk_storage.c), by its id.  flags:
 * BPF_LOCAL_STORAGE_GET_F_CREATE or 0, else NULL, as the kernel's. */
u64 h_cgrp_storage_get(u64 map, u64 cgrp, u64 value, u64 flags, u64 a5)
{
	u64 id;

	if (!cgrp || flags & ~(u64)BPF_LOCAL_STORAGE_GET_F_CREATE || cgroup_id_of(cgrp, &id))
		return 0;
	return (u64)(uintptr_t)cgrp_storage_get(PTR(map), id, PTR(value),
						flags == BPF_LOCAL_STORAGE_GET_F_CREATE);
}

u64 h_cgrp_storage_delete(u64 map, u64 cgrp, u64 a3, u64 a4, u64 a5)
{
	u64 id;

	if (!cgrp || cgroup_id_of(cgrp, &id))
		return (u64)-EINVAL;
	return (u64)(s64)cgrp_storage_delete(PTR(map), id);
}

u64 h_get_current_cgroup_id(u64 a1, u64 a2, u64 a3, u64 a4, u64 a5)
{
	return current_cgroup_id(-1);
}

u64 h_get_current_ancestor_cgroup_id(u64 level, u64 a2, u64 a3, u64 a4, u64 a5)
{
	return level > INT32_MAX ? 0 : current_cgroup_id((int)level);
}

/* bpf_skb_cgroup_id(skb), bpf_skb_ancestor_cgroup_id(skb, level): the cgroup of the packet's
 * socket, which for a test run's dummy socket is the cgroup of whoever runs it. */
u64 h_skb_cgroup_id(u64 ctx, u64 a2, u64 a3, u64 a4, u64 a5)
{
	return current_cgroup_id(-1);
}

u64 h_skb_ancestor_cgroup_id(u64 ctx, u64 level, u64 a3, u64 a4, u64 a5)
{
	return level > INT32_MAX ? 0 : current_cgroup_id((int)level);
}

/* The calling thread's net_cls class id: its cgroup v1 net_cls controller's net_cls.classid
 * (the kernel's task_get_classid(), which a test run's dummy socket also takes); 0 where no
 * net_cls hierarchy is mounted (cgroup v2 hosts). */
static u32 net_cls_classid(void)
{
	char line[4096], path[4096 + 1100], mnt[1024] = "", cg[4096] = "";
	unsigned long id = 0;
	FILE *f = fopen("/proc/thread-self/cgroup", "re");

	while (f && fgets(line, sizeof(line), f)) {
		char *ctl = strchr(line, ':'), *p;

		if (!ctl || !(p = strchr(ctl + 1, ':')))
			continue;
		*p = 0;
		/* "N:net_cls,net_prio:/path" */
		for (char *tok = strtok(ctl + 1, ","); tok; tok = strtok(NULL, ","))
			if (!strcmp(tok, "net_cls"))
				snprintf(cg, sizeof(cg), "%.*s", (int)strcspn(p + 1, "\n"), p + 1);
	}
	if (f)
		fclose(f);
	if (!cg[0])
		return 0;
	f = fopen("/proc/self/mountinfo", "re");
	while (f && fgets(path, sizeof(path), f)) {
		char m[1024], opts[1024], *dash = strstr(path, " - ");

		if (dash && sscanf(dash + 3, "cgroup %*s %1023s", opts) == 1 &&
		    (strstr(opts, ",net_cls") || !strncmp(opts, "net_cls", 7)) &&
		    sscanf(path, "%*s %*s %*s %*s %1023s", m) == 1) {
			strcpy(mnt, m);
			break;
		}
	}
	if (f)
		fclose(f);
	if (!mnt[0])
		return 0;
	snprintf(path, sizeof(path), "%s%s/net_cls.classid", mnt, cg);
	f = fopen(path, "re");
	if (f) {
		if (fscanf(f, "%lu", &id) != 1)
			id = 0;
		fclose(f);
	}
	return (u32)id;
}

u64 h_cgroup_classid(u64 a1, u64 a2, u64 a3, u64 a4, u64 a5)
{
	return net_cls_classid();
}
