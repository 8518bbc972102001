/* kallsyms.h: one pass over /proc/kallsyms per lookup (a loader's few, not a hot path). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kallsyms.h"

int kallsyms_lookup(const char *name, u64 *addr, bool *ambiguous)
{
	const char *path = getenv("USERBPF_KALLSYMS");
	FILE *fp = fopen(path && *path ? path : "/proc/kallsyms", "r");
	char line[512], sym[256];
	unsigned long long a;
	bool shown = false, found = false;

	*addr = 0;
	if (ambiguous)
		*ambiguous = false;
	if (!fp)
		return -errno;
	while (fgets(line, sizeof(line), fp)) {
		if (sscanf(line, "%llx %*s %255s", &a, sym) != 2)
			continue;
		shown |= a != 0;
		if (strcmp(sym, name))
			continue;
		if (!found) {
			*addr = a;
			found = true;
			if (!ambiguous)
				break;
		} else if (a != *addr) {
			*ambiguous = true;
			break;
		}
	}
	fclose(fp);
	if (!shown) /* (a line's address 0: hidden, as all are then) */
		return -EPERM;
	return found ? 0 : -ENOENT;
}
