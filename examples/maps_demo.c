/* maps_demo — what userbpf does, in one screen: create a hash map and an array map through bpf(),
 * fill them, iterate with GET_NEXT_KEY and a batch lookup, show the kernel's errors, and close.
 * Build and run: make demo */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include <userbpf.h>

static int map_create(enum bpf_map_type type, unsigned key, unsigned value, unsigned max,
		      const char *name)
{
	union bpf_attr a;

	memset(&a, 0, sizeof(a));
	a.map_type = type;
	a.key_size = key;
	a.value_size = value;
	a.max_entries = max;
	strncpy(a.map_name, name, sizeof(a.map_name) - 1);
	return bpf(BPF_MAP_CREATE, &a, sizeof(a));
}

static int elem(int cmd, int fd, const void *key, void *value, unsigned long long flags)
{
	union bpf_attr a;

	memset(&a, 0, sizeof(a));
	a.map_fd = fd;
	a.key = (unsigned long long)(unsigned long)key;
	a.value = (unsigned long long)(unsigned long)value;
	a.flags = flags;
	return bpf(cmd, &a, sizeof(a));
}

static int next_key(int fd, const void *key, void *next)
{
	union bpf_attr a;

	memset(&a, 0, sizeof(a));
	a.map_fd = fd;
	a.key = (unsigned long long)(unsigned long)key;
	a.next_key = (unsigned long long)(unsigned long)next;
	return bpf(BPF_MAP_GET_NEXT_KEY, &a, sizeof(a));
}

int main(void)
{
	static const char *const words[] = { "tcp", "udp", "icmp", "sctp", "gre" };
	static const unsigned long long counts[] = { 1200, 340, 17, 2, 55 };
	char key[8], next[8];
	unsigned long long v;
	int hash, arr, i;

	printf("userbpf %s: the bpf() system call in user space\n\n", userbpf_version());

	hash = map_create(BPF_MAP_TYPE_HASH, sizeof(key), sizeof(v), 4, "protocols");
	arr = map_create(BPF_MAP_TYPE_ARRAY, 4, sizeof(v), 8, "histogram");
	if (hash < 0 || arr < 0) {
		perror("BPF_MAP_CREATE");
		return 1;
	}
	printf("created hash map fd %d (4 entries max) and array map fd %d (8 entries)\n", hash, arr);

	for (i = 0; i < 5; i++) {
		memset(key, 0, sizeof(key));
		strncpy(key, words[i], sizeof(key) - 1);
		if (elem(BPF_MAP_UPDATE_ELEM, hash, key, (void *)&counts[i], BPF_ANY) < 0)
			printf("  update '%s': %s (errno %d) - the map is full, as on the kernel\n",
			       words[i], strerror(errno), errno);
		else
			printf("  update '%s' = %llu\n", words[i], counts[i]);
	}
	memset(key, 0, sizeof(key));
	strcpy(key, "tcp");
	if (elem(BPF_MAP_UPDATE_ELEM, hash, key, &v, BPF_NOEXIST) < 0)
		printf("  update 'tcp' with BPF_NOEXIST: %s (errno %d)\n", strerror(errno), errno);

	printf("\nhash map contents (GET_NEXT_KEY):\n");
	for (int r = next_key(hash, NULL, next); r == 0; r = next_key(hash, key, next)) {
		elem(BPF_MAP_LOOKUP_ELEM, hash, next, &v, 0);
		printf("  %-6s %6llu\n", next, v);
		memcpy(key, next, sizeof(key));
	}

	for (unsigned idx = 0; idx < 8; idx++) {
		v = (unsigned long long)idx * idx;
		elem(BPF_MAP_UPDATE_ELEM, arr, &idx, &v, BPF_ANY);
	}
	printf("\narray map contents (BPF_MAP_LOOKUP_BATCH):\n");
	{
		unsigned keys[8], out_batch, n;
		unsigned long long vals[8];
		union bpf_attr a;

		memset(&a, 0, sizeof(a));
		a.batch.map_fd = (unsigned)arr;
		a.batch.keys = (unsigned long long)(unsigned long)keys;
		a.batch.values = (unsigned long long)(unsigned long)vals;
		a.batch.out_batch = (unsigned long long)(unsigned long)&out_batch;
		a.batch.count = 8;
		bpf(BPF_MAP_LOOKUP_BATCH, &a, sizeof(a));
		n = a.batch.count;
		for (unsigned j = 0; j < n; j++)
			printf("  [%u] %llu\n", keys[j], vals[j]);
	}

	close(hash);
	if (elem(BPF_MAP_LOOKUP_ELEM, hash, key, &v, 0) < 0)
		printf("\nafter close(%d): lookup gives %s (errno %d), as on the kernel\n", hash,
		       strerror(errno), errno);
	close(arr);
	return 0;
}
