/* loader_sides.h: one object on both sides. */
#include <string.h>

#include "loader_sides.h"
#include "test.h"

bool obj_sides_open(struct obj_sides *os, const char *path)
{
	memset(os, 0, sizeof(*os));
	for (int s = 0; s < NSIDES; s++) {
		struct userbpf_object_opts opts = { .sz = sizeof(opts), .bpf = diff_sides[s]->bpf };

		if (userbpf_object_open_file(path, &opts, &os->obj[s]) ||
		    userbpf_object_load(os->obj[s])) {
			test_fail(__FILE__, __LINE__, "%s: no load on side %d", path, s);
			obj_sides_close(os);
			return false;
		}
		os->prog[s] = userbpf_program_fd(userbpf_object_program(os->obj[s], 0));
		if (os->prog[s] < 0) {
			test_fail(__FILE__, __LINE__, "%s: no program", path);
			obj_sides_close(os);
			return false;
		}
	}
	return true;
}

int obj_sides_map(struct obj_sides *os, int s, const char *name)
{
	int fd = userbpf_map_fd(userbpf_object_find_map(os->obj[s], name));

	if (fd < 0)
		test_fail(__FILE__, __LINE__, "no map %s on side %d", name, s);
	return fd;
}

bool obj_sides_maps(struct obj_sides *os, const char *name, int fds[NSIDES])
{
	for (int s = 0; s < NSIDES; s++)
		if ((fds[s] = obj_sides_map(os, s, name)) < 0)
			return false;
	return true;
}

bool obj_sides_bss(struct obj_sides *os, int fds[NSIDES])
{
	for (int s = 0; s < NSIDES; s++) {
		fds[s] = -1;
		for (size_t i = 0; i < userbpf_object_map_count(os->obj[s]); i++) {
			const char *n = userbpf_map_name(userbpf_object_map(os->obj[s], i));
			size_t len = strlen(n);

			if (len >= 4 && !strcmp(n + len - 4, ".bss"))
				fds[s] = userbpf_map_fd(userbpf_object_map(os->obj[s], i));
		}
		if (fds[s] < 0) {
			test_fail(__FILE__, __LINE__, "no .bss map on side %d", s);
			return false;
		}
	}
	return true;
}

void obj_sides_close(struct obj_sides *os)
{
	for (int s = 0; s < NSIDES; s++) {
		userbpf_object_close(os->obj[s]);
		os->obj[s] = NULL;
	}
}
