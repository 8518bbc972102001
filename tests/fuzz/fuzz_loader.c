/* libFuzzer target for the ELF loader (make fuzz-loader).
 *
 * Why: users load objects they did not build (a CI artifact, a vendor's program), and the loader
 * walks offsets, counts and names that the file itself states.  Whatever the bytes, opening and
 * loading must end in 0 or a negative errno, never a crash, an out-of-bounds read or a leak, and
 * must leave no fd behind once the object is closed.  Seed the corpus with real objects (the
 * Makefile copies the build's *.bpf.o into it) so that mutations reach past the ELF header into
 * the maps, BTF, relocations and the verifier.
 *
 * Pins go under a directory that does not exist, so a mutated pinning attribute cannot create
 * files; the load itself runs on userbpf's bpf().
 */
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "userbpf.h"
#include "userbpf/loader.h"

const char *__asan_default_options(void);
const char *__asan_default_options(void)
{
	return "allocator_may_return_null=1";
}

static int lowest_free_fd(void)
{
	int fd = open("/dev/null", O_RDONLY | O_CLOEXEC);

	if (fd >= 0)
		close(fd);
	return fd;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static char errbuf[256], log[4096];
	struct userbpf_object_opts opts = {
		.sz = sizeof(opts),
		.errbuf = errbuf,
		.errbuf_size = sizeof(errbuf),
		.log_buf = log,
		.log_size = sizeof(log),
		.pin_root_path = "/nonexistent/userbpf-fuzz",
	};
	struct userbpf_object *obj = NULL;
	int floor = lowest_free_fd(), err;

	err = userbpf_object_open_mem(data, size, &opts, &obj);
	if (err > 0 || (err == 0) != (obj != NULL)) {
		fprintf(stderr, "open_mem returned %d with obj %p\n", err, (void *)obj);
		abort();
	}
	if (!err) {
		err = userbpf_object_load(obj);
		if (err > 0) {
			fprintf(stderr, "load returned %d\n", err);
			abort();
		}
		userbpf_object_close(obj);
	}
	if (lowest_free_fd() != floor) {
		fprintf(stderr, "fd leak: lowest free fd %d, was %d\n", lowest_free_fd(), floor);
		abort();
	}
	return 0;
}
