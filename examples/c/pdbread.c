/*
 * pdbread: reads a table exported by `pdbgen export --format raw` without the toolkit:
 * the raw values (one byte per entry, in index order) and the JSON sidecar beside them.
 * It prints the value of each state given, for pattern databases (index kperm-v1, see
 * docs/FORMAT.md), and the histogram of all values.
 *
 *   cc -O2 -o pdbread pdbread.c
 *   ./pdbread table.raw "1 4 2 3 13 6 7 8 5 10 11 0 9 14 15 12"
 *
 * Output, one item a line:  value STATE: V   then   histogram D COUNT  for each value.
 * Public domain: copy it into your solver.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAXCELLS 25

/* The sidecar's fields we need. */
struct sidecar {
	char kind[8];
	int width, height, ntiles, tiles[MAXCELLS], blank_in_index;
	long long entries;
};

static char *slurp(const char *path, long long *size) {
	FILE *f = fopen(path, "rb");
	if (!f) return NULL;
	fseek(f, 0, SEEK_END);
	*size = ftell(f);
	fseek(f, 0, SEEK_SET);
	char *buf = malloc(*size + 1);
	if (!buf || fread(buf, 1, *size, f) != (size_t)*size) { fclose(f); free(buf); return NULL; }
	buf[*size] = 0;
	fclose(f);
	return buf;
}

/* field returns where the value of "key" starts in the JSON text, or NULL. */
static const char *field(const char *json, const char *key) {
	char pat[64];
	snprintf(pat, sizeof pat, "\"%s\":", key);
	const char *p = strstr(json, pat);
	if (!p) return NULL;
	p += strlen(pat);
	while (*p == ' ') p++;
	return p;
}

static int read_sidecar(const char *path, struct sidecar *s) {
	long long n;
	char *json = slurp(path, &n);
	if (!json) return -1;
	const char *p;
	memset(s, 0, sizeof *s);
	if ((p = field(json, "kind")) && *p == '"') sscanf(p + 1, "%7[^\"]", s->kind);
	if ((p = field(json, "width"))) s->width = atoi(p);
	if ((p = field(json, "height"))) s->height = atoi(p);
	if ((p = field(json, "entries"))) s->entries = atoll(p);
	if ((p = field(json, "blank_in_index"))) s->blank_in_index = strncmp(p, "true", 4) == 0;
	if ((p = field(json, "tiles")) && *p == '[') {
		for (p++; *p && *p != ']' && s->ntiles < MAXCELLS; ) {
			while (*p == ' ' || *p == '\n' || *p == ',') p++;
			if (*p == ']') break;
			s->tiles[s->ntiles++] = (int)strtol(p, (char **)&p, 10);
		}
	}
	free(json);
	return s->width > 0 && s->height > 0 && s->width * s->height <= MAXCELLS && s->entries > 0 ? 0 : -1;
}

/* kperm_index ranks the cells of the pattern tiles (and the blank) of a state. */
static long long kperm_index(const struct sidecar *s, const int *state) {
	int n = s->width * s->height, cell[MAXCELLS], c[MAXCELLS + 1], m = 0;
	for (int i = 0; i < n; i++) cell[state[i]] = i;
	for (int i = 0; i < s->ntiles; i++) c[m++] = cell[s->tiles[i]];
	if (s->blank_in_index) c[m++] = cell[0];
	long long index = 0;
	for (int i = 0; i < m; i++) {
		int d = c[i];
		for (int j = 0; j < i; j++) if (c[j] < c[i]) d--;
		index = index * (n - i) + d;
	}
	return index;
}

int main(int argc, char **argv) {
	if (argc < 2) {
		fprintf(stderr, "usage: pdbread TABLE.raw [STATE ...]\n");
		return 2;
	}
	char side[4096];
	snprintf(side, sizeof side, "%s.json", argv[1]);
	struct sidecar s;
	if (read_sidecar(side, &s) != 0) {
		fprintf(stderr, "pdbread: cannot read the sidecar %s\n", side);
		return 1;
	}
	long long size;
	unsigned char *values = (unsigned char *)slurp(argv[1], &size);
	if (!values || size != s.entries) {
		fprintf(stderr, "pdbread: %s does not hold the %lld entries its sidecar says\n", argv[1], s.entries);
		return 1;
	}
	int n = s.width * s.height;
	for (int a = 2; a < argc; a++) {
		int state[MAXCELLS], k = 0;
		const char *p = argv[a];
		while (*p && k < n) {
			while (*p == ' ' || *p == ',' || *p == '/') p++;
			if (!*p) break;
			state[k++] = (int)strtol(p, (char **)&p, 10);
		}
		if (k != n || strcmp(s.kind, "pdb") != 0) {
			fprintf(stderr, "pdbread: %s is not a state of %d numbers for a pdb table\n", argv[a], n);
			return 1;
		}
		printf("value %s: %d\n", argv[a], values[kperm_index(&s, state)]);
	}
	long long hist[256] = {0};
	for (long long i = 0; i < size; i++) hist[values[i]]++;
	for (int d = 0; d < 256; d++) if (hist[d]) printf("histogram %d %lld\n", d, hist[d]);
	free(values);
	return 0;
}
