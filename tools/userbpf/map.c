/* `userbpf map ...`: list, dump, lookup and update an object's maps, and the value syntax and map
 * printing the runner's --set and `prog run --map-dump` share.
 *
 * Maps exist only while this process runs, so each command loads the object, optionally runs
 * packets through one of its programs (the runner's options; --prog picks it, else the first),
 * then acts on the map: `update` writes before the run and prints the entry after it.
 * Entries are walked with BPF_MAP_GET_NEXT_KEY from no key, through the selected backend.
 * Text output prints keys and values of 1, 2, 4 or 8 bytes as unsigned integers (host order),
 * others as hex bytes; arrays leave out all-zero values unless --all.  JSON follows bpftool:
 * "key" and "value" as arrays of "0x.." byte strings, plus "formatted" integers when they fit.
 */
#include <endian.h>
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <linux/perf_event.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "cli.h"

#define VALUE_MAX 4096 /* key or value size the CLI handles */

static bool int_size(unsigned int n)
{
	return n == 1 || n == 2 || n == 4 || n == 8;
}

static int hexval(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

int cli_parse_bytes(const char *s, void *out, unsigned int size)
{
	uint8_t *b = out;
	bool be = false;
	uint64_t v;
	char *end;

	if (!strncmp(s, "hex:", 4)) {
		unsigned int n = 0;

		for (s += 4; *s; s++) {
			int hi, lo;

			if (*s == ' ' || *s == ':')
				continue;
			hi = hexval(s[0]);
			lo = s[1] ? hexval(s[1]) : -1;
			if (hi < 0 || lo < 0 || n >= size)
				return -EINVAL;
			b[n++] = (uint8_t)(hi << 4 | lo);
			s++;
		}
		return n == size ? 0 : -EINVAL;
	}
	if (!strncmp(s, "be:", 3)) {
		be = true;
		s += 3;
	}
	if (!int_size(size) || !*s || *s == '-')
		return -EINVAL;
	errno = 0;
	v = strtoull(s, &end, 0);
	if (errno || *end || (size < 8 && v >> (size * 8)))
		return -EINVAL;
	for (unsigned int i = 0; i < size; i++) {
		unsigned int shift = 8 * (be ? size - 1 - i : i);

		b[i] = (uint8_t)(v >> shift);
	}
#if __BYTE_ORDER == __BIG_ENDIAN
	if (!be)
		for (unsigned int i = 0; i < size / 2; i++) {
			uint8_t t = b[i];

			b[i] = b[size - 1 - i];
			b[size - 1 - i] = t;
		}
#endif
	return 0;
}

static uint64_t as_uint(const uint8_t *b, unsigned int size)
{
	uint64_t v = 0;

	memcpy(&v, b, size); /* little-endian hosts: the low bytes */
#if __BYTE_ORDER == __BIG_ENDIAN
	v >>= 64 - 8 * size;
#endif
	return v;
}

/* Per-CPU maps: bpf() reads and writes one round_up(value_size, 8)-byte copy per possible CPU. */
static bool is_percpu(const struct userbpf_map *m)
{
	enum bpf_map_type t = userbpf_map_type(m);

	return t == BPF_MAP_TYPE_PERCPU_ARRAY || t == BPF_MAP_TYPE_PERCPU_HASH ||
	       t == BPF_MAP_TYPE_LRU_PERCPU_HASH;
}

static unsigned int cpu_stride(const struct userbpf_map *m)
{
	return (userbpf_map_value_size(m) + 7) / 8 * 8;
}

static unsigned int ncpus_of(const struct userbpf_map *m)
{
	return is_percpu(m) ? (unsigned int)userbpf_num_possible_cpus() : 1;
}

/* Bytes of a value buffer for bpf(): every CPU's copy for per-CPU maps. */
static size_t value_bytes(const struct userbpf_map *m)
{
	return is_percpu(m) ? (size_t)cpu_stride(m) * ncpus_of(m) : userbpf_map_value_size(m);
}

static struct userbpf_map *find_map(struct userbpf_object *obj, const char *name)
{
	struct userbpf_map *m = userbpf_object_find_map(obj, name);

	if (!m)
		cli_err("%s: no map '%s'", userbpf_object_name(obj), name);
	else if (userbpf_map_key_size(m) > VALUE_MAX || userbpf_map_value_size(m) > VALUE_MAX) {
		cli_err("map '%s': keys or values over %u bytes", name, VALUE_MAX);
		m = NULL;
	}
	return m;
}

/* Writes key = value; a per-CPU map gets the value on every CPU. */
static int map_update(struct userbpf_map *m, const char *key, const char *value)
{
	uint8_t k[VALUE_MAX], *v = calloc(1, value_bytes(m));
	union bpf_attr attr;
	int rc = EXIT_USAGE;

	if (!v) {
		cli_err("out of memory");
		return EXIT_RUN;
	}
	if (cli_parse_bytes(key, k, userbpf_map_key_size(m))) {
		cli_err("map '%s': bad key '%s' for %u-byte keys", userbpf_map_name(m), key,
			userbpf_map_key_size(m));
		goto out;
	}
	if (cli_parse_bytes(value, v, userbpf_map_value_size(m))) {
		cli_err("map '%s': bad value '%s' for %u-byte values", userbpf_map_name(m), value,
			userbpf_map_value_size(m));
		goto out;
	}
	for (unsigned int cpu = 1; cpu < ncpus_of(m); cpu++)
		memcpy(v + (size_t)cpu * cpu_stride(m), v, userbpf_map_value_size(m));
	memset(&attr, 0, sizeof(attr));
	attr.map_fd = userbpf_map_fd(m);
	attr.key = (uint64_t)(uintptr_t)k;
	attr.value = (uint64_t)(uintptr_t)v;
	rc = EXIT_OK;
	if (cli_backend()(BPF_MAP_UPDATE_ELEM, &attr, sizeof(attr)) < 0) {
		cli_err("map '%s': update: %s", userbpf_map_name(m), strerror(errno));
		rc = EXIT_RUN;
	}
out:
	free(v);
	return rc;
}

int cli_map_set(struct userbpf_object *obj, const char *arg)
{
	char *s = strdup(arg), *colon, *eq;
	struct userbpf_map *m;
	int rc = EXIT_USAGE;

	if (!s)
		return EXIT_RUN;
	colon = strchr(s, ':');
	eq = colon ? strchr(colon, '=') : NULL;
	if (!colon || !eq) {
		cli_err("--set wants MAP:KEY=VALUE, not '%s'", arg);
		goto out;
	}
	*colon = *eq = '\0';
	m = find_map(obj, s);
	if (m)
		rc = map_update(m, colon + 1, eq + 1);
out:
	free(s);
	return rc;
}

static const char *key_name(const char *names, uint64_t k)
{
	static const struct {
		uint8_t proto;
		const char *name;
	} ipproto[] = {
	    {0, "hopopt"}, {1, "icmp"},	  {2, "igmp"},	    {4, "ipip"},
	    {6, "tcp"},	   {17, "udp"},	  {41, "ipv6"},	    {47, "gre"},
	    {50, "esp"},   {51, "ah"},	  {58, "icmpv6"},   {89, "ospf"},
	    {103, "pim"},  {132, "sctp"}, {136, "udplite"}, {255, "raw"},
	};
	static const char *const xdp[] = {"XDP_ABORTED", "XDP_DROP", "XDP_PASS", "XDP_TX",
					  "XDP_REDIRECT"};

	if (!names)
		return NULL;
	if (!strcmp(names, "ipproto")) {
		for (size_t i = 0; i < sizeof(ipproto) / sizeof(ipproto[0]); i++)
			if (ipproto[i].proto == k)
				return ipproto[i].name;
	} else if (!strcmp(names, "xdp") && k < 5) {
		return xdp[k];
	}
	return NULL;
}

static void print_hex(const uint8_t *b, unsigned int n)
{
	for (unsigned int i = 0; i < n; i++)
		printf("%s%02x", i ? " " : "", b[i]);
}

static void json_bytes(const uint8_t *b, unsigned int n)
{
	char s[8];

	json_begin_array();
	for (unsigned int i = 0; i < n; i++) {
		snprintf(s, sizeof(s), "0x%02x", b[i]);
		json_string(s);
	}
	json_end_array();
}

/* One entry.  A per-CPU value prints as its CPUs' copies; integers also as their sum (what a
 * per-CPU counter counts). */
static void print_entry(struct userbpf_map *m, const uint8_t *k, const uint8_t *v,
			const char *names)
{
	unsigned int ks = userbpf_map_key_size(m), vs = userbpf_map_value_size(m);
	unsigned int n = ncpus_of(m), stride = cpu_stride(m);
	bool ints = int_size(ks) && int_size(vs), percpu = is_percpu(m);
	const char *kn = int_size(ks) ? key_name(names, as_uint(k, ks)) : NULL;
	uint64_t sum = 0;

	for (unsigned int c = 0; ints && c < n; c++)
		sum += as_uint(v + (size_t)c * stride, vs);
	if (cli.json) {
		json_begin_object();
		json_key("key");
		json_bytes(k, ks);
		json_key(percpu ? "values" : "value");
		if (percpu) {
			json_begin_array();
			for (unsigned int c = 0; c < n; c++) {
				json_begin_object();
				json_key("cpu");
				json_uint(c);
				json_key("value");
				json_bytes(v + (size_t)c * stride, vs);
				json_end_object();
			}
			json_end_array();
		} else {
			json_bytes(v, vs);
		}
		if (ints) {
			json_key("formatted");
			json_begin_object();
			json_key("key");
			json_uint(as_uint(k, ks));
			if (kn) {
				json_key("key_name");
				json_string(kn);
			}
			json_key(percpu ? "sum" : "value");
			json_uint(sum);
			json_end_object();
		}
		json_end_object();
	} else if (ints) {
		char label[40];

		if (kn)
			snprintf(label, sizeof(label), "%" PRIu64 " (%s)", as_uint(k, ks), kn);
		else
			snprintf(label, sizeof(label), "%" PRIu64, as_uint(k, ks));
		printf("  %-20s %20" PRIu64, label, sum);
		for (unsigned int c = 0; percpu && c < n; c++)
			printf("%scpu%u %" PRIu64 "%s", c ? ", " : "  (", c,
			       as_uint(v + (size_t)c * stride, vs), c + 1 < n ? "" : ")");
		putchar('\n');
	} else {
		printf("  key: ");
		print_hex(k, ks);
		for (unsigned int c = 0; c < n; c++) {
			if (percpu)
				printf("\n    cpu%u: ", c);
			else
				printf("  value: ");
			print_hex(v + (size_t)c * stride, vs);
		}
		putchar('\n');
	}
}

void cli_map_print_header(struct userbpf_map *m)
{
	printf("map %s: %s, key %u B, value %u B, max_entries %u\n", userbpf_map_name(m),
	       cli_map_type_name(userbpf_map_type(m)), userbpf_map_key_size(m),
	       userbpf_map_value_size(m), userbpf_map_max_entries(m));
}

void cli_map_json_fields(struct userbpf_map *m)
{
	json_key("name");
	json_string(userbpf_map_name(m));
	json_key("type");
	json_string(cli_map_type_name(userbpf_map_type(m)));
	json_key("key_size");
	json_uint(userbpf_map_key_size(m));
	json_key("value_size");
	json_uint(userbpf_map_value_size(m));
	json_key("max_entries");
	json_uint(userbpf_map_max_entries(m));
}

static void json_map_info(struct userbpf_map *m)
{
	cli_map_json_fields(m);
	json_key("flags");
	json_uint(userbpf_map_flags(m));
}

static bool all_zero(const uint8_t *b, unsigned int n)
{
	for (unsigned int i = 0; i < n; i++)
		if (b[i])
			return false;
	return true;
}

/* One value without a key (a ring buffer record, a queue or stack element, a perf record):
 * "  #i  value", after "cpu N" for a perf record (cpu >= 0). */
static void print_keyless(int cpu, unsigned long i, const uint8_t *v, unsigned int n,
			  bool discarded)
{
	if (cli.json) {
		json_begin_object();
		if (cpu >= 0) {
			json_key("cpu");
			json_uint((unsigned int)cpu);
		}
		json_key("index");
		json_uint(i);
		json_key("value");
		json_bytes(v, n);
		if (discarded) {
			json_key("discarded");
			json_bool(true);
		}
		json_end_object();
		return;
	}
	if (cpu >= 0)
		printf("  cpu %-3d", cpu);
	if (int_size(n) && !discarded) {
		printf("  #%-4lu %20" PRIu64 "\n", i, as_uint(v, n));
	} else {
		printf("  #%-4lu %s%u B: ", i, discarded ? "(discarded) " : "", n);
		print_hex(v, n);
		putchar('\n');
	}
}

/* A ring buffer's records between the consumer and producer positions, oldest first, read
 * through a read-only mapping (the dump consumes nothing).  Discarded records are shown as
 * such; a busy one (still reserved) ends the walk, as it ends a consumer's. */
static int dump_ringbuf(struct userbpf_map *m)
{
	size_t page = (size_t)sysconf(_SC_PAGESIZE), size = userbpf_map_max_entries(m);
	size_t len = 2 * page + 2 * size;
	const uint8_t *base = mmap(NULL, len, PROT_READ, MAP_SHARED, userbpf_map_fd(m), 0);
	unsigned long n = 0;

	if (base == MAP_FAILED) {
		cli_err("map '%s': mmap: %s", userbpf_map_name(m), strerror(errno));
		return EXIT_RUN;
	}
	uint64_t cons = __atomic_load_n((const uint64_t *)base, __ATOMIC_ACQUIRE);
	uint64_t prod = __atomic_load_n((const uint64_t *)(base + page), __ATOMIC_ACQUIRE);
	const uint8_t *data = base + 2 * page;

	while (cons < prod) {
		uint32_t hdr = __atomic_load_n((const uint32_t *)(data + (cons & (size - 1))),
					       __ATOMIC_ACQUIRE);
		uint32_t rlen = hdr & ~(BPF_RINGBUF_BUSY_BIT | BPF_RINGBUF_DISCARD_BIT);

		if (hdr & BPF_RINGBUF_BUSY_BIT)
			break;
		print_keyless(-1, n++, data + (cons & (size - 1)) + BPF_RINGBUF_HDR_SZ, rlen,
			      hdr & BPF_RINGBUF_DISCARD_BIT);
		cons += (rlen + BPF_RINGBUF_HDR_SZ + 7) & ~7ull;
	}
	munmap((void *)base, len);
	if (!cli.json)
		printf("  (%lu records not yet consumed)\n", n);
	return EXIT_OK;
}

/* One CPU's perf records, drained from its ring during the run (perf.c), oldest first.
 * Samples print as "cpu N  #i  value": the raw data as a reader gets it, whose u32 size counts
 * the padding that 8-aligns the record; lost records as their count. */
static void dump_perf_ring(const struct cli_perf_ring *r, unsigned long *n, uint64_t *lost)
{
	const uint8_t *rec = r->kept, *end = r->kept + r->kept_len;

	while (end - rec >= (long)sizeof(struct perf_event_header)) {
		struct perf_event_header h;

		memcpy(&h, rec, sizeof(h));
		if (h.size < sizeof(h) || h.size > end - rec)
			break;
		if (h.type == PERF_RECORD_SAMPLE && h.size >= sizeof(h) + 4) {
			uint32_t raw;

			memcpy(&raw, rec + sizeof(h), 4);
			if (raw > h.size - sizeof(h) - 4u)
				raw = h.size - sizeof(h) - 4u;
			print_keyless(r->cpu, (*n)++, rec + sizeof(h) + 4, raw, false);
		} else if (h.type == PERF_RECORD_LOST && h.size >= sizeof(h) + 16) {
			uint64_t count;

			memcpy(&count, rec + sizeof(h) + 8, 8);
			*lost += count;
			if (cli.json) {
				json_begin_object();
				json_key("cpu");
				json_uint((unsigned int)r->cpu);
				json_key("lost");
				json_uint(count);
				json_end_object();
			} else {
				printf("  cpu %-3d  (%" PRIu64 " records lost: the ring was full)\n",
				       r->cpu, count);
			}
		}
		rec += h.size;
	}
}

/* A perf event array's records, CPU by CPU, from the events the runner attached (perf.c). */
static void dump_perf_event_array(const struct userbpf_map *m)
{
	unsigned long n = 0;
	uint64_t lost = 0;
	unsigned int nrings;
	const struct cli_perf_ring *rings = cli_perf_rings(m, &nrings);

	for (unsigned int i = 0; i < nrings; i++)
		dump_perf_ring(&rings[i], &n, &lost);
	if (cli.json)
		return;
	if (!rings)
		printf("  (no perf events attached: they are, one per CPU, when packets run)\n");
	else if (lost)
		printf("  (%lu records, %" PRIu64 " lost)\n", n, lost);
	else
		printf("  (%lu records)\n", n);
}

/* A queue's or stack's elements in the order pops would give them.  bpf() has no way to look
 * beyond the first, so the dump pops them all and pushes them back (the CLI is the only user
 * of its maps). */
static int dump_queue_stack(struct userbpf_map *m)
{
	unsigned int vs = userbpf_map_value_size(m), max = userbpf_map_max_entries(m);
	uint8_t *vals = calloc((size_t)max, vs);
	userbpf_bpf_fn bpf_fn = cli_backend();
	bool stack = userbpf_map_type(m) == BPF_MAP_TYPE_STACK;
	union bpf_attr attr;
	unsigned int n = 0;
	int rc = EXIT_OK;

	if (!vals) {
		cli_err("out of memory");
		return EXIT_RUN;
	}
	for (; n < max; n++) {
		memset(&attr, 0, sizeof(attr));
		attr.map_fd = userbpf_map_fd(m);
		attr.value = (uint64_t)(uintptr_t)(vals + (size_t)n * vs);
		if (bpf_fn(BPF_MAP_LOOKUP_AND_DELETE_ELEM, &attr, sizeof(attr)) < 0)
			break;
	}
	for (unsigned int i = 0; i < n; i++)
		print_keyless(-1, i, vals + (size_t)i * vs, vs, false);
	/* back in: a queue in pop order, a stack in reverse */
	for (unsigned int i = 0; i < n; i++) {
		memset(&attr, 0, sizeof(attr));
		attr.map_fd = userbpf_map_fd(m);
		attr.value = (uint64_t)(uintptr_t)(vals + (size_t)(stack ? n - 1 - i : i) * vs);
		if (bpf_fn(BPF_MAP_UPDATE_ELEM, &attr, sizeof(attr)) < 0) {
			cli_err("map '%s': push back: %s", userbpf_map_name(m), strerror(errno));
			rc = EXIT_RUN;
		}
	}
	free(vals);
	return rc;
}

int cli_map_dump(struct userbpf_object *obj, const char *name, const char *names, bool all)
{
	uint8_t key[VALUE_MAX], next[VALUE_MAX], *value = NULL;
	struct userbpf_map *m = find_map(obj, name);
	userbpf_bpf_fn bpf_fn = cli_backend();
	unsigned long shown = 0, hidden = 0;
	union bpf_attr attr;
	bool first = true, skip_zero;
	int rc = EXIT_OK;

	if (!m)
		return EXIT_USAGE;
	value = malloc(value_bytes(m));
	if (!value) {
		cli_err("out of memory");
		return EXIT_RUN;
	}
	skip_zero = !all && (userbpf_map_type(m) == BPF_MAP_TYPE_ARRAY ||
			     userbpf_map_type(m) == BPF_MAP_TYPE_PERCPU_ARRAY);
	if (cli.json) {
		json_begin_object();
		json_map_info(m);
		json_key("entries");
		json_begin_array();
	} else {
		cli_map_print_header(m);
	}
	switch (userbpf_map_type(m)) {
	case BPF_MAP_TYPE_RINGBUF:
	case BPF_MAP_TYPE_USER_RINGBUF:
		rc = dump_ringbuf(m);
		goto end;
	case BPF_MAP_TYPE_QUEUE:
	case BPF_MAP_TYPE_STACK:
		rc = dump_queue_stack(m);
		goto end;
	case BPF_MAP_TYPE_PERF_EVENT_ARRAY:
		dump_perf_event_array(m);
		goto end;
	case BPF_MAP_TYPE_BLOOM_FILTER:
		/* a set of bits: it answers membership, it has no elements to list */
		if (!cli.json)
			printf("  (a bloom filter has no elements to list: it answers membership "
			       "tests, BPF_MAP_LOOKUP_ELEM of a value)\n");
		goto end;
	case BPF_MAP_TYPE_SK_STORAGE:
		/* keyed by a socket's fd: sockets cannot be walked */
		if (!cli.json)
			printf("  (socket storage is read by a socket's fd, and cannot be listed; a "
			       "run's socket, and its storage, are the run's own)\n");
		goto end;
	case BPF_MAP_TYPE_SOCKMAP:
	case BPF_MAP_TYPE_SOCKHASH:
		/* sockets go in by their fds, from the process that has them */
		if (!cli.json)
			printf("  (a socket map holds the sockets a process adds by fd; the CLI adds "
			       "none)\n");
		goto end;
	case BPF_MAP_TYPE_CGROUP_STORAGE:
	case BPF_MAP_TYPE_PERCPU_CGROUP_STORAGE:
		/* its elements are the storages of attached cgroups; a run's storage is the
		 * run's own (the kernel's test run too) */
		if (!cli.json)
			printf("  (cgroup storage lists the storage of cgroups a program is attached "
			       "to, and none is: each run has fresh storage of its own)\n");
		goto end;
	case BPF_MAP_TYPE_XSKMAP:
		if (!cli.json)
			printf("  (an AF_XDP socket map's sockets cannot be read back, as on the "
			       "kernel)\n");
		goto end;
	default:
		break;
	}
	for (;;) {
		memset(&attr, 0, sizeof(attr));
		attr.map_fd = userbpf_map_fd(m);
		attr.key = first ? 0 : (uint64_t)(uintptr_t)key;
		attr.next_key = (uint64_t)(uintptr_t)next;
		if (bpf_fn(BPF_MAP_GET_NEXT_KEY, &attr, sizeof(attr)) < 0) {
			if (errno != ENOENT) {
				cli_err("map '%s': get_next_key: %s", name, strerror(errno));
				rc = EXIT_RUN;
			}
			break;
		}
		first = false;
		memcpy(key, next, userbpf_map_key_size(m));
		memset(&attr, 0, sizeof(attr));
		attr.map_fd = userbpf_map_fd(m);
		attr.key = (uint64_t)(uintptr_t)key;
		attr.value = (uint64_t)(uintptr_t)value;
		if (bpf_fn(BPF_MAP_LOOKUP_ELEM, &attr, sizeof(attr)) < 0)
			continue; /* deleted meanwhile */
		if (skip_zero && all_zero(value, (unsigned int)value_bytes(m))) {
			hidden++;
			continue;
		}
		print_entry(m, key, value, names);
		shown++;
	}
end:
	if (cli.json) {
		json_end_array();
		json_end_object();
	} else if (hidden) {
		printf("  (%lu entries shown, %lu all-zero not shown: --all shows them)\n", shown,
		       hidden);
	}
	free(value);
	return rc;
}

static int map_lookup(struct userbpf_map *m, const char *key, const char *names)
{
	uint8_t k[VALUE_MAX], *v = malloc(value_bytes(m));
	union bpf_attr attr;
	int rc = EXIT_USAGE;

	if (!v) {
		cli_err("out of memory");
		return EXIT_RUN;
	}
	if (cli_parse_bytes(key, k, userbpf_map_key_size(m))) {
		cli_err("map '%s': bad key '%s' for %u-byte keys", userbpf_map_name(m), key,
			userbpf_map_key_size(m));
		goto out;
	}
	memset(&attr, 0, sizeof(attr));
	attr.map_fd = userbpf_map_fd(m);
	attr.key = (uint64_t)(uintptr_t)k;
	attr.value = (uint64_t)(uintptr_t)v;
	rc = EXIT_RUN;
	if (cli_backend()(BPF_MAP_LOOKUP_ELEM, &attr, sizeof(attr)) < 0) {
		cli_err("map '%s': lookup of %s: %s", userbpf_map_name(m), key,
			errno == ENOENT ? "no such key" : strerror(errno));
		goto out;
	}
	print_entry(m, k, v, names);
	rc = EXIT_OK;
out:
	free(v);
	return rc;
}

static void usage(FILE *f)
{
	fprintf(
	    f,
	    "Usage: userbpf [--json] [--kernel] [--btf FILE] map COMMAND ...\n"
	    "  map list   OBJ                          maps of the object\n"
	    "  map dump   OBJ:MAP [OPTIONS]            every entry\n"
	    "  map lookup OBJ:MAP KEY [OPTIONS]        one entry\n"
	    "  map update OBJ:MAP KEY VALUE [OPTIONS]  write an entry, then print it\n"
	    "\n"
	    "The object is loaded by each command (maps live in this process).  With an input,\n"
	    "packets run through a program first (update: after the write), so a map shows what\n"
	    "the program did.  Maps without keys dump their elements: a queue or stack in pop\n"
	    "order, a ring buffer its unconsumed records, a perf event array the records of the\n"
	    "events a run attaches to it (one per CPU, 64 data pages each).\n"
	    "Options:\n"
	    "  --prog NAME          the program to run (default: the first)\n"
	    "  --names ipproto|xdp  label integer keys (IP protocols, XDP actions)\n"
	    "  --all                arrays: also entries whose value is all zero\n" RUN_OPTIONS_HELP
	    "\n" EXIT_CODES_HELP);
}

enum { OPT_PROG = OPT_RUN_LAST, OPT_NAMES, OPT_ALL, OPT_HELP };

int do_map(int argc, char **argv)
{
	static const struct option longopts[] = {
	    RUN_LONG_OPTIONS,	       {"prog", 1, NULL, OPT_PROG}, {"names", 1, NULL, OPT_NAMES},
	    {"all", 0, NULL, OPT_ALL}, {"help", 0, NULL, OPT_HELP}, {NULL, 0, NULL, 0},
	};
	const char *cmd = argc > 0 ? argv[0] : NULL, *prog_name = NULL, *names = NULL, *mapname;
	struct userbpf_object *obj = NULL;
	struct run_opts ro = {0};
	struct userbpf_map *m;
	char *path = NULL;
	const char *pos[3];
	int npos = 0, opt, rc, want;
	bool all = false;

	if (!cmd || !strcmp(cmd, "help") || !strcmp(cmd, "--help") || !strcmp(cmd, "-h")) {
		usage(cmd ? stdout : stderr);
		return cmd ? EXIT_OK : EXIT_USAGE;
	}
	if (!strcmp(cmd, "list") || !strcmp(cmd, "show"))
		want = 1;
	else if (!strcmp(cmd, "dump"))
		want = 1;
	else if (!strcmp(cmd, "lookup"))
		want = 2;
	else if (!strcmp(cmd, "update"))
		want = 3;
	else {
		cli_err("unknown map command '%s'", cmd);
		usage(stderr);
		return EXIT_USAGE;
	}
	optind = 0; /* full reset of getopt's state */
	opterr = 0;
	while ((opt = getopt_long(argc, argv, "+h", longopts, NULL)) != -1 || optind < argc) {
		if (opt == -1) {
			/* a positional argument: collect it and go on parsing options after it */
			if (npos < 3)
				pos[npos] = argv[optind];
			npos++;
			optind++;
			continue;
		}
		rc = run_opt_parse(&ro, opt, optarg);
		if (rc < 0)
			return EXIT_USAGE;
		if (rc)
			continue;
		switch (opt) {
		case OPT_PROG:
			prog_name = optarg;
			break;
		case OPT_NAMES:
			if (strcmp(optarg, "ipproto") && strcmp(optarg, "xdp")) {
				cli_err("--names: ipproto or xdp, not '%s'", optarg);
				return EXIT_USAGE;
			}
			names = optarg;
			break;
		case OPT_ALL:
			all = true;
			break;
		case 'h':
		case OPT_HELP:
			usage(stdout);
			return EXIT_OK;
		default:
			cli_err("map %s: unknown option '%s'", cmd, argv[optind - 1]);
			return EXIT_USAGE;
		}
	}
	if (npos != want) {
		cli_err("map %s: wants %d argument%s, got %d (see userbpf map help)", cmd, want,
			want > 1 ? "s" : "", npos);
		return EXIT_USAGE;
	}
	if (cli_split_spec(pos[0], &path, &mapname))
		return EXIT_RUN;
	if (strcmp(cmd, "list") && strcmp(cmd, "show") && !mapname) {
		cli_err("map %s: name the map as OBJ:MAP", cmd);
		rc = EXIT_USAGE;
		goto out;
	}
	rc = cli_load_simple(path, NULL, &obj);
	if (rc)
		goto out;
	if (!strcmp(cmd, "list") || !strcmp(cmd, "show")) {
		if (cli.json)
			json_begin_array();
		for (size_t i = 0; i < userbpf_object_map_count(obj); i++) {
			m = userbpf_object_map(obj, i);
			if (cli.json) {
				json_begin_object();
				json_map_info(m);
				json_end_object();
			} else {
				cli_map_print_header(m);
			}
		}
		if (cli.json) {
			json_end_array();
			json_finish();
		}
		goto out;
	}
	m = find_map(obj, mapname);
	if (!m) {
		rc = EXIT_USAGE;
		goto out;
	}
	if (want == 3) {
		rc = map_update(m, pos[1], pos[2]);
		if (rc)
			goto out;
	}
	if (run_opts_have_input(&ro) || ro.nsets) {
		struct userbpf_program *p = prog_name ? userbpf_object_find_program(obj, prog_name)
						      : userbpf_object_program(obj, 0);

		if (!p) {
			cli_err("%s: no program '%s'", path, prog_name ? prog_name : "(any)");
			rc = EXIT_USAGE;
			goto out;
		}
		if (run_opts_have_input(&ro)) {
			rc = run_packets(obj, p, &ro, false);
		} else {
			for (unsigned int i = 0; i < ro.nsets && !rc; i++)
				rc = cli_map_set(obj, ro.sets[i]);
		}
		if (rc)
			goto out;
	}
	if (want == 1)
		rc = cli_map_dump(obj, mapname, names, all);
	else
		rc = map_lookup(m, pos[1], names);
	if (cli.json)
		json_finish();
out:
	userbpf_object_close(obj);
	free(path);
	return rc;
}
