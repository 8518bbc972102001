# userbpf — plain Makefile.
#   make              library (.so, .a), CLI, conformance plugin
#   make check        build and run every test (the README's test command)
#   make check32      the same as a 32-bit (i386) build, in build32/
#   make check-asan   the tests under AddressSanitizer + UndefinedBehaviorSanitizer
#   make check-tsan   the concurrency stress test and the bpf_timer tests under ThreadSanitizer
#   make fuzz         a bounded libFuzzer run of the bpf() entry point (clang)
#   make bench        benchmarks: ratios against the kernel and native C
#   make demo         the README's main job: sockex1 over generated traffic through the CLI
#   make embed-demo   the embedding API's example (examples/embed_demo.c)
#   make install PREFIX=/usr/local

CC      ?= cc
BUILD   ?= build
PREFIX  ?= /usr/local
ARCHFLAGS ?=
VERSION := 0.1.0

WARN    := -Wall -Wextra -Wno-unused-parameter -Wshadow -Wstrict-prototypes
CFLAGS  ?= -O2 -g
# Functions and loops on cache-line boundaries: without this, a change anywhere (the verifier)
# moved the map update path the JIT's code calls and cost the hashmap benchmark 1 ns in 8.
LAYOUT  := -falign-functions=64 -falign-loops=32
ALL_CFLAGS := -std=gnu11 $(WARN) $(CFLAGS) $(LAYOUT) $(ARCHFLAGS) -fPIC -fvisibility=hidden \
              -D_GNU_SOURCE -Iinclude -Isrc -MMD -MP
LDLIBS  := -lpthread

# The libc wrappers (src/hooks.c) run inside ThreadSanitizer's own start-up (its symbolizer
# calls mmap() and close()), before its runtime can take instrumented calls: that file is
# built without its instrumentation.
$(BUILD)/src/hooks.o: ALL_CFLAGS += $(if $(findstring -fsanitize=thread,$(CFLAGS)),-fno-sanitize=thread -DUSERBPF_TSAN)

LIB_SRCS  := $(shell find src -name '*.c' -not -path 'src/preload/*' | sort)
LIB_OBJS  := $(LIB_SRCS:%.c=$(BUILD)/%.o)
TEST_SRCS := $(sort $(wildcard tests/*.c))
TEST_OBJS := $(TEST_SRCS:%.c=$(BUILD)/%.o)
CLI_SRCS  := $(sort $(wildcard tools/userbpf/*.c))
CLI_OBJS  := $(CLI_SRCS:%.c=$(BUILD)/%.o)
BENCH_SRCS := $(sort $(wildcard bench/*.c))
PLUGIN_SRCS := $(sort $(wildcard tools/conformance-plugin/*.c))
PLUGIN_OBJS := $(PLUGIN_SRCS:%.c=$(BUILD)/%.o)
# what the tests share with the plugin: running one program the plugin's way
PLUGIN_LIB_OBJS := $(filter-out %/main.o,$(PLUGIN_OBJS))

LIB_A   := $(BUILD)/libuserbpf.a
LIB_SO  := $(BUILD)/libuserbpf.so
CLI     := $(BUILD)/userbpf
TESTS   := $(BUILD)/tests/run-tests
STRESS  := $(BUILD)/tests/stress
BENCH   := $(BUILD)/bench/bench
DEMO    := $(BUILD)/examples/maps_demo
EMBED_DEMO := $(BUILD)/examples/embed_demo
PLUGIN  := $(BUILD)/userbpf-conformance-plugin

.PHONY: all check check-build check-interp check32 check-asan check-tsan fuzz fuzz-loader bench demo demo-maps embed-demo install clean valgrind

all: $(LIB_A) $(LIB_SO) $(CLI) $(PLUGIN) $(EMBED_DEMO)

$(BUILD)/%.o: %.c
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) -c $< -o $@

# --- ELF loader (src/loader/): libelf, and the BPF objects it loads -----------------------------
# examples/*.bpf.c, tests/fixtures/*.bpf.c and tests/corpus/*.bpf.c are compiled with clang -target bpf into
# $(BUILD)/examples/ and $(BUILD)/tests/fixtures/; the loader tests find them through
# LOADER_OBJ_DIR.  BPF objects are 64-bit whatever ARCHFLAGS says.  Without a libelf for the
# target (e.g. -m32 without libelf-dev:i386) the loader and its tests are left out, with a warning.
HAVE_LIBELF := $(shell printf 'int main(void){return 0;}' | \
		 $(CC) $(ARCHFLAGS) -x c - -lelf -o /dev/null 2>/dev/null && echo 1)
ifeq ($(HAVE_LIBELF),1)
LDLIBS     += -lelf -lz
else
$(warning no libelf for '$(CC) $(ARCHFLAGS)': building without the ELF loader and its tests)
LIB_SRCS   := $(filter-out src/loader/%,$(LIB_SRCS))
LIB_OBJS   := $(LIB_SRCS:%.c=$(BUILD)/%.o)
TEST_SRCS  := $(filter-out tests/test_loader% tests/loader_sides.c,$(TEST_SRCS))
TEST_OBJS  := $(TEST_SRCS:%.c=$(BUILD)/%.o)
endif
BPF_CLANG  ?= clang
BPF_CFLAGS := -O2 -g -target bpf -Wall -I/usr/include/$(shell gcc -print-multiarch)
BPF_SRCS   := $(sort $(wildcard examples/*.bpf.c tests/fixtures/*.bpf.c tests/corpus/*.bpf.c))
BPF_OBJS   := $(BPF_SRCS:%.bpf.c=$(BUILD)/%.bpf.o)

$(BUILD)/%.bpf.o: %.bpf.c
	@mkdir -p $(dir $@)
	$(BPF_CLANG) $(BPF_CFLAGS) -c $< -o $@
# (the corpus programs' and fixtures' shared declarations)
$(filter $(BUILD)/tests/corpus/%,$(BPF_OBJS)): $(wildcard tests/corpus/*.h)
$(filter $(BUILD)/tests/fixtures/%,$(BPF_OBJS)): $(wildcard tests/fixtures/*.h tests/corpus/*.h)

$(TESTS): $(BPF_OBJS)
$(BUILD)/tests/test_loader%.o: ALL_CFLAGS += -DLOADER_OBJ_DIR='"$(BUILD)"'

.PHONY: bpf-objs
bpf-objs: $(BPF_OBJS)
# --- end of ELF loader block -------------------------------------------------------------------

$(LIB_A): $(LIB_OBJS)
	@rm -f $@
	$(AR) rcs $@ $^

$(LIB_SO): $(LIB_OBJS) userbpf.map
	$(CC) $(ARCHFLAGS) -shared -Wl,--version-script=userbpf.map -Wl,-soname,libuserbpf.so.0 \
	    $(LDFLAGS) -o $@.0 $(LIB_OBJS) $(LDLIBS)
	ln -sf libuserbpf.so.0 $@

# libuserbpf-preload.so: the library plus a syscall() that sends __NR_bpf to it, for programs
# (libbpf) that call the kernel themselves: LD_PRELOAD=libuserbpf-preload.so (src/preload/).
PRELOAD := $(BUILD)/libuserbpf-preload.so
LIBBPF_USER :=
$(PRELOAD): $(LIB_OBJS) $(BUILD)/src/preload/preload.o
	$(CC) $(ARCHFLAGS) -shared $(LDFLAGS) -o $@ $^ $(LDLIBS) -ldl
all: $(PRELOAD)

# --- CLI (tools/userbpf/) and traffic generator (tools/trafficgen/): libpcap ---------------------
# libpcap is linked into the CLI and trafficgen only, never the library.  Without a libpcap for
# the target (e.g. -m32 without libpcap-dev:i386) the CLI builds without --pcap/--iface (HAVE_LIBPCAP
# undefined) and trafficgen is not built; without libelf the CLI is left out (it needs the loader).
HAVE_LIBPCAP := $(shell printf 'int pcap_datalink(void *);int main(void){return pcap_datalink(0);}' | \
		  $(CC) $(ARCHFLAGS) -x c - -lpcap -o /dev/null 2>/dev/null && echo 1)
TRAFFICGEN := $(BUILD)/trafficgen
ifeq ($(HAVE_LIBPCAP),1)
CLI_LDLIBS := -lpcap
$(CLI_OBJS): ALL_CFLAGS += -DHAVE_LIBPCAP
all: $(TRAFFICGEN)
else
$(warning no libpcap for '$(CC) $(ARCHFLAGS)': the CLI without --pcap/--iface, no trafficgen)
TRAFFICGEN :=
endif
ifneq ($(HAVE_LIBELF),1)
CLI :=
endif

$(CLI): $(CLI_OBJS) $(LIB_A)
	$(CC) $(ARCHFLAGS) $(CFLAGS) $(LDFLAGS) -o $@ $(CLI_OBJS) $(LIB_A) $(LDLIBS) $(CLI_LDLIBS)

$(BUILD)/trafficgen: tools/trafficgen/trafficgen.c
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) $(LDFLAGS) -o $@ $< -lpcap

# tests/test_cli.c runs the CLI and trafficgen as programs.
$(TESTS): $(CLI) $(TRAFFICGEN)
$(BUILD)/tests/test_cli.o: ALL_CFLAGS += -DCLI_PATH='"$(CLI)"' -DTRAFFICGEN_PATH='"$(TRAFFICGEN)"' \
	-DLOADER_OBJ_DIR='"$(BUILD)"'
# bench/bench_loader.c: load times of the example objects (needs the loader).
ifeq ($(HAVE_LIBELF),1)
$(BENCH): $(BPF_OBJS)
$(BENCH): ALL_CFLAGS += -DLOADER_OBJ_DIR='"$(BUILD)"'
# libbpf, the reference loader, beside ours in the load rows (the bench only, not the library)
HAVE_LIBBPF := $(shell printf '\043include <bpf/libbpf.h>\nint main(void){return 0;}' | \
		 $(CC) $(ARCHFLAGS) -x c - -lbpf -o /dev/null 2>/dev/null && echo 1)
ifeq ($(HAVE_LIBBPF),1)
$(BENCH): ALL_CFLAGS += -DHAVE_LIBBPF
$(BENCH): BENCH_LIBS := -lbpf
# tests/test_preload.c runs this libbpf user with the preload library
LIBBPF_USER := $(BUILD)/tests/libbpf-user
$(LIBBPF_USER): tests/preload/libbpf_user.c $(wildcard tests/preload/*.h)
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) $(LDFLAGS) -o $@ $< -lbpf
$(TESTS): $(LIBBPF_USER)
# ... and this light skeleton user (bpftool's `gen skeleton -L`: no libbpf at run time, its
# skel_internal.h only), where bpftool is installed
BPFTOOL ?= $(shell command -v bpftool 2>/dev/null || ls /usr/sbin/bpftool 2>/dev/null)
ifneq ($(BPFTOOL),)
LSKEL_USER := $(BUILD)/tests/lskel-user
$(BUILD)/tests/lskel/xdp_lskel_counts.lskel.h: $(BUILD)/tests/corpus/xdp_lskel_counts.bpf.o
	@mkdir -p $(dir $@)
	$(BPFTOOL) gen skeleton -L $< name xdp_lskel_counts > $@.tmp && mv $@.tmp $@
$(LSKEL_USER): tests/preload/lskel_user.c tests/preload/fd_kind.h \
		$(BUILD)/tests/lskel/xdp_lskel_counts.lskel.h
	$(CC) $(ALL_CFLAGS) -I$(BUILD)/tests/lskel $(LDFLAGS) -o $@ $<
$(TESTS): $(LSKEL_USER)
endif
endif
else
BENCH_SRCS := $(filter-out bench/bench_loader.c,$(BENCH_SRCS))
endif
# --- end of CLI block --------------------------------------------------------------------------

# What the configuration found is compiled into objects (-DHAVE_LIBPCAP, CLI_PATH, the tests
# left out without libelf...): a stamp rewritten when it changes rebuilds them, so installing a
# library after a first build never leaves objects built for the old set.
CONFIG_STAMP := $(BUILD)/config.stamp
CONFIG_LINE := cc=$(CC) cflags=$(CFLAGS) $(LAYOUT) arch=$(ARCHFLAGS) libelf=$(HAVE_LIBELF) \
	libpcap=$(HAVE_LIBPCAP) libbpf=$(HAVE_LIBBPF) bpftool=$(BPFTOOL)
$(shell mkdir -p $(BUILD) && [ "$$(cat $(CONFIG_STAMP) 2>/dev/null)" = '$(CONFIG_LINE)' ] || \
	printf '%s\n' '$(CONFIG_LINE)' > $(CONFIG_STAMP))
$(LIB_OBJS) $(TEST_OBJS) $(CLI_OBJS) $(PLUGIN_OBJS) $(BUILD)/src/preload/preload.o: $(CONFIG_STAMP)
$(BENCH) $(LIBBPF_USER) $(LSKEL_USER) $(TRAFFICGEN): $(CONFIG_STAMP)
$(TESTS): $(PRELOAD)
$(BUILD)/tests/test_preload.o: ALL_CFLAGS += -DPRELOAD_PATH='"$(PRELOAD)"' \
	-DLIBBPF_USER_PATH='"$(LIBBPF_USER)"' -DLSKEL_USER_PATH='"$(LSKEL_USER)"' \
	-DLOADER_OBJ_DIR='"$(BUILD)"'

$(PLUGIN): $(PLUGIN_OBJS) $(LIB_A)
	$(CC) $(ARCHFLAGS) $(CFLAGS) $(LDFLAGS) -o $@ $(PLUGIN_OBJS) $(LIB_A) $(LDLIBS)

# Tests link the static library so that sanitizer builds see every object.  The plugin binary is
# a prerequisite: a test runs it to check its stdin/stdout protocol.
$(TESTS): $(TEST_OBJS) $(PLUGIN_LIB_OBJS) $(LIB_A) $(PLUGIN)
	@mkdir -p $(dir $@)
	$(CC) $(ARCHFLAGS) $(CFLAGS) $(LDFLAGS) -o $@ $(TEST_OBJS) $(PLUGIN_LIB_OBJS) $(LIB_A) $(LDLIBS)

$(STRESS): tests/stress/stress.c $(LIB_A)
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) -Itests $(LDFLAGS) -o $@ $< $(LIB_A) $(LDLIBS)

HAVE_STRESS := $(wildcard tests/stress/stress.c)

check-build: $(TESTS) $(LIB_SO) $(if $(HAVE_STRESS),$(STRESS))

check: check-build
	$(TESTS)
	$(if $(HAVE_STRESS),$(STRESS) --quick)

# The same tests with the interpreter forced for loaded programs (the JIT is the default).
check-interp: $(TESTS)
	USERBPF_JIT=0 $(TESTS)

# Run natively where the kernel executes i386 binaries.  Some VMs cannot (a PVM guest has no
# 32-bit user mode: "exec format error"); there the tests run under qemu-i386 (Debian's qemu-user),
# less those that need what user-mode emulation does not give: running other i386 binaries (the
# CLI and plugin tests), signals (send_signal), process_vm_readv() on our own memory (the probe
# reads, and %s in the printk/snprintf helpers), the netns cookie; without qemu-i386 the run is
# reported skipped.  qemu-user has no bpf(): the differential parts skip, as on a laptop.
QEMU_I386_LEAVE_OUT := -cli_ -conformance_plugin_binary -helpers_send_signal -helpers_probe_read \
	-helpers_snprintf -helpers_trace_printk -helpers_trace_vprintk -helpers_cgroup_netns
check32:
	$(MAKE) BUILD=build32 ARCHFLAGS=-m32 check-build
	@printf 'int main(void) { return 0; }\n' | $(CC) -m32 -x c -o build32/i386-probe -
	@if build32/i386-probe 2>/dev/null; then \
		$(MAKE) BUILD=build32 ARCHFLAGS=-m32 check; \
	elif command -v qemu-i386 >/dev/null; then \
		echo "check32: this kernel cannot execute i386 binaries: the tests run under qemu-i386"; \
		QEMU_LD_PREFIX=/ qemu-i386 build32/tests/run-tests $(QEMU_I386_LEAVE_OUT); \
	else \
		echo "SKIP check32: this kernel cannot execute i386 binaries and there is no qemu-i386 (the build above is checked, the tests are not run)"; \
		echo "0 passed, 0 failed, 1 skipped"; \
	fi

check-asan:
	$(MAKE) BUILD=build-asan CFLAGS="-O1 -g -fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=all" \
	    LDFLAGS="-fsanitize=address,undefined" check

# (and the bpf_timer tests: the timer thread runs callbacks while programs arm and cancel)
check-tsan:
	$(MAKE) BUILD=build-tsan CFLAGS="-O1 -g -fsanitize=thread" LDFLAGS="-fsanitize=thread" \
	    $(BUILD:build=build-tsan)/tests/stress $(BUILD:build=build-tsan)/tests/run-tests
	build-tsan/tests/stress
	TSAN_OPTIONS=die_after_fork=0 build-tsan/tests/run-tests timer # (loader_timer_fork starts threads in a child)

# Differential tests send invalid attrs to the kernel on purpose: tests/valgrind.supp silences
# valgrind's checks of those kernel calls, and USERBPF_VALGRIND makes the kernel backend answer
# NULL attrs itself (valgrind's bpf() wrapper crashes on them).  userbpf's side runs in full.
valgrind: $(TESTS)
	USERBPF_VALGRIND=1 valgrind --error-exitcode=99 --leak-check=full \
	    --errors-for-leak-kinds=definite --suppressions=tests/valgrind.supp -q $(TESTS)

FUZZ_TIME ?= 60
fuzz:
	$(MAKE) CC=clang BUILD=build-fuzz CFLAGS="-O1 -g -fsanitize=fuzzer-no-link,address,undefined" build-fuzz/libuserbpf.a
	clang -std=gnu11 -D_GNU_SOURCE -O1 -g -fsanitize=fuzzer,address,undefined -Iinclude -Isrc \
	    -o build-fuzz/fuzz-bpf tests/fuzz/fuzz_bpf.c build-fuzz/libuserbpf.a -lpthread
	@mkdir -p build-fuzz/corpus
	build-fuzz/fuzz-bpf -max_total_time=$(FUZZ_TIME) -rss_limit_mb=4096 build-fuzz/corpus

# The ELF loader on mutated objects; the corpus starts from the build's own BPF objects.
fuzz-loader: $(BPF_OBJS)
	$(MAKE) CC=clang BUILD=build-fuzz CFLAGS="-O1 -g -fsanitize=fuzzer-no-link,address,undefined" build-fuzz/libuserbpf.a
	clang -std=gnu11 -D_GNU_SOURCE -O1 -g -fsanitize=fuzzer,address,undefined -Iinclude -Isrc \
	    -o build-fuzz/fuzz-loader tests/fuzz/fuzz_loader.c build-fuzz/libuserbpf.a -lpthread -lelf -lz
	@mkdir -p build-fuzz/corpus-loader
	cp $(BPF_OBJS) build-fuzz/corpus-loader/
	build-fuzz/fuzz-loader -max_total_time=$(FUZZ_TIME) -rss_limit_mb=4096 -malloc_limit_mb=65536 \
	    -artifact_prefix=build-fuzz/ build-fuzz/corpus-loader

$(BENCH): $(BENCH_SRCS) tests/btf_blob.c $(LIB_A)
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) -O2 -Itests $(LDFLAGS) -o $@ $(BENCH_SRCS) tests/btf_blob.c $(LIB_A) \
	    $(LDLIBS) $(BENCH_LIBS)

bench: $(BENCH)
	$(BENCH)

$(DEMO): examples/maps_demo.c $(LIB_A)
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) $(LDFLAGS) -o $@ $< $(LIB_A) $(LDLIBS)

# --- demo: sockex1 over generated traffic, through the CLI -----------------------------------------
DEMO_PCAP := $(BUILD)/demo/traffic.pcap
demo: $(CLI) $(TRAFFICGEN) $(BUILD)/examples/sockex1.bpf.o
	@mkdir -p $(dir $(DEMO_PCAP))
	@echo '$$ $(TRAFFICGEN) -o $(DEMO_PCAP)'
	@$(TRAFFICGEN) -o $(DEMO_PCAP)
	@echo '$$ $(CLI) prog run $(BUILD)/examples/sockex1.bpf.o --pcap $(DEMO_PCAP) --map-dump my_map --names ipproto'
	@$(CLI) prog run $(BUILD)/examples/sockex1.bpf.o --pcap $(DEMO_PCAP) --map-dump my_map --names ipproto
	@echo '(key 0 holds the IPv6 and ARP frames: like the kernel sample, sockex1 reads byte 23 of every frame)'

# the maps-through-bpf() example (the demo before the CLI)
demo-maps: $(DEMO)
	$(DEMO)
# --- end of demo block ---------------------------------------------------------------------------

$(EMBED_DEMO): examples/embed_demo.c $(LIB_A)
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) $(LDFLAGS) -o $@ $< $(LIB_A) $(LDLIBS)

embed-demo: $(EMBED_DEMO)
	$(EMBED_DEMO)

$(BUILD)/userbpf.pc: userbpf.pc.in
	sed -e 's|@PREFIX@|$(PREFIX)|' -e 's|@VERSION@|$(VERSION)|' $< > $@

install: all $(BUILD)/userbpf.pc
	install -d $(DESTDIR)$(PREFIX)/lib/pkgconfig $(DESTDIR)$(PREFIX)/include/userbpf $(DESTDIR)$(PREFIX)/bin
	install -m 644 $(LIB_A) $(DESTDIR)$(PREFIX)/lib/
	install -m 755 $(LIB_SO).0 $(DESTDIR)$(PREFIX)/lib/libuserbpf.so.0
	ln -sf libuserbpf.so.0 $(DESTDIR)$(PREFIX)/lib/libuserbpf.so
	install -m 755 $(PRELOAD) $(DESTDIR)$(PREFIX)/lib/
	install -m 644 include/userbpf.h $(DESTDIR)$(PREFIX)/include/
	install -m 644 include/userbpf/*.h $(DESTDIR)$(PREFIX)/include/userbpf/
	install -m 644 $(BUILD)/userbpf.pc $(DESTDIR)$(PREFIX)/lib/pkgconfig/
	install -m 755 $(CLI) $(DESTDIR)$(PREFIX)/bin/

clean:
	rm -rf build build32 build-asan build-tsan build-fuzz build-clang

-include $(shell find $(BUILD) -name '*.d' 2>/dev/null)

# --- soundness (verifier accepts => checked run is clean) --------------------------------------
#   make soundness SECONDS=600 [SEED=n]   the long run; violating programs go to $(BUILD)/soundness/
#   make fuzz-verifier FUZZ_TIME=60       libFuzzer: fuzz bytes -> generated programs (clang)
SECONDS ?= 60
SEED    ?= 0
SOUND   := $(BUILD)/tests/soundness-run
$(SOUND): tests/soundness/main.c tests/soundness_gen.c tests/soundness_gen.h tests/prog_struct.h \
	    tests/btf_blob.c \
	    tests/kernel_probe.c tests/kernel_probe.h $(LIB_A)
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) -Itests $(LDFLAGS) -o $@ tests/soundness/main.c tests/soundness_gen.c \
	    tests/btf_blob.c tests/kernel_probe.c \
	    $(LIB_A) $(LDLIBS)

.PHONY: soundness fuzz-verifier
soundness: $(SOUND)
	@mkdir -p $(BUILD)/soundness
	$(SOUND) $(SECONDS) $(if $(filter-out 0,$(SEED)),$(SEED),$$(date +%s)) $(BUILD)/soundness

fuzz-verifier:
	$(MAKE) CC=clang BUILD=build-fuzz CFLAGS="-O1 -g -fsanitize=fuzzer-no-link,address,undefined" build-fuzz/libuserbpf.a
	clang -std=gnu11 -D_GNU_SOURCE -O1 -g -fsanitize=fuzzer,address,undefined -Iinclude -Isrc -Itests \
	    -o build-fuzz/fuzz-verifier tests/fuzz/fuzz_verifier.c tests/soundness_gen.c tests/btf_blob.c \
	    tests/kernel_probe.c \
	    build-fuzz/libuserbpf.a -lpthread $(if $(filter 1,$(HAVE_LIBELF)),-lelf -lz)
	@mkdir -p build-fuzz/corpus-verifier
	build-fuzz/fuzz-verifier -max_total_time=$(FUZZ_TIME) -rss_limit_mb=4096 build-fuzz/corpus-verifier
# --- end of soundness block --------------------------------------------------------------------
