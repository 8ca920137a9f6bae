/*
 * pdbread: reads a table exported by `pdbgen export --format raw` without the toolkit:
 * the raw values (one byte per entry, in index order) and the JSON sidecar beside them.
 * It prints the value of each state given, for pattern databases (index kperm-v1, or
 * zperm-v1 for the zero-aware tables; see docs/FORMAT.md), and the histogram of all
 * values. Bad input (a missing or damaged file, a state that is not one) is reported in
 * one line, with exit status 1.
 *
 *   cc -O2 -o pdbread pdbread.c
 *   ./pdbread table.raw "1 4 2 3 13 6 7 8 5 10 11 0 9 14 15 12"
 *
 * Output, one item a line:  value STATE: V   then   histogram D COUNT  for each value.
 * Public domain: copy it into your solver.
 */
#include <errno.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#define MAXCELLS 25
#define MAXSIDECAR (1 << 20)

/* The sidecar's fields we need. */
struct sidecar {
	char kind[8], index[16], sha256[65];
	int width, height, n, ntiles, tiles[MAXCELLS], blank_in_index, zero_aware;
	long long entries;
};

/* number reads a whole number of at most max at p (no sign); -1 when there is none. */
static long long number(const char *p, long long max) {
	char *end;
	errno = 0;
	if (*p < '0' || *p > '9') return -1;
	long long v = strtoll(p, &end, 10);
	return errno || v > max ? -1 : v;
}

/* times sets *out to a*b and reports whether it fits (a, b at least 0). */
static int times(long long a, long long b, long long *out) {
	if (a != 0 && b > LLONG_MAX / a) return 0;
	*out = a * b;
	return 1;
}

/* regular says whether path names a regular file (not a FIFO, a device or a directory,
 * which could block a read or never end). */
static int regular(const char *path) {
	struct stat st;
	return stat(path, &st) == 0 && S_ISREG(st.st_mode);
}

/* slurp reads at most limit bytes of a regular file (and fails on a longer one). */
static char *slurp(const char *path, long long limit, long long *size) {
	if (!regular(path)) return NULL;
	FILE *f = fopen(path, "rb");
	if (!f) return NULL;
	char *buf = NULL;
	if (fseek(f, 0, SEEK_END) == 0 && (*size = ftell(f)) >= 0 && *size <= limit && fseek(f, 0, SEEK_SET) == 0 &&
	    (buf = malloc(*size + 1)) && fread(buf, 1, *size, f) == (size_t)*size) {
		buf[*size] = 0;
	} else {
		free(buf);
		buf = NULL;
	}
	fclose(f);
	return buf;
}

/*
 * The sidecar is read as JSON (RFC 8259) with three limits the exporter never meets: ASCII
 * only, nesting at most MAXDEPTH deep, and each key this reader takes once at the top
 * level. Anything else is refused, as the Python reader refuses it.
 */
#define MAXDEPTH 64

static void ws(const char **p) {
	while (**p == ' ' || **p == '\t' || **p == '\n' || **p == '\r') (*p)++;
}

/* hexval is the value of hex digit c, or -1. */
static int hexval(char c) {
	if (c >= '0' && c <= '9') return c - '0';
	if (c >= 'a' && c <= 'f') return c - 'a' + 10;
	if (c >= 'A' && c <= 'F') return c - 'A' + 10;
	return -1;
}

/* jchar reads one character of a string at *p, an escape decoded, into *c (-1 for one
 * past ASCII), and moves past it: 1; 0 at the string's closing quote; -1 where it is not
 * JSON (or not ASCII). */
static int jchar(const char **p, int *c) {
	unsigned char x = (unsigned char)**p;
	if (x == '"') return 0;
	if (x < 0x20 || x >= 0x80) return -1;
	(*p)++;
	if (x != '\\') {
		*c = x;
		return 1;
	}
	x = (unsigned char)*(*p)++;
	const char *from = "\"\\/bfnrt", *to = "\"\\/\b\f\n\r\t";
	const char *e = x ? strchr(from, x) : NULL;
	if (e) {
		*c = to[e - from];
		return 1;
	}
	if (x != 'u') return -1;
	int v = 0;
	for (int i = 0; i < 4; i++) {
		int h = hexval(**p);
		if (h < 0) return -1;
		(*p)++;
		v = v * 16 + h;
	}
	*c = v < 0x80 ? v : -1;
	return 1;
}

/* jstring checks a string at *p and moves past it. */
static int jstring(const char **p) {
	int c, r;
	if (**p != '"') return 0;
	for ((*p)++; (r = jchar(p, &c)) == 1;) {
	}
	if (r < 0) return 0;
	(*p)++;
	return 1;
}

/* jnumber checks a number at *p and moves past it; integer says whether it has neither a
 * fraction nor an exponent. */
static int jnumber(const char **p, int *integer) {
	const char *q = *p;
	if (*q == '-') q++;
	if (*q == '0') q++;
	else if (*q >= '1' && *q <= '9') while (*q >= '0' && *q <= '9') q++;
	else return 0;
	*integer = 1;
	if (*q == '.') {
		*integer = 0;
		if (*++q < '0' || *q > '9') return 0;
		while (*q >= '0' && *q <= '9') q++;
	}
	if (*q == 'e' || *q == 'E') {
		*integer = 0;
		if (*++q == '+' || *q == '-') q++;
		if (*q < '0' || *q > '9') return 0;
		while (*q >= '0' && *q <= '9') q++;
	}
	*p = q;
	return 1;
}

/* jvalue checks any value at *p, depth containers deep, and moves past it. */
static int jvalue(const char **p, int depth) {
	int integer;
	ws(p);
	switch (**p) {
	case '"': return jstring(p);
	case 't': if (strncmp(*p, "true", 4) == 0) { *p += 4; return 1; } return 0;
	case 'f': if (strncmp(*p, "false", 5) == 0) { *p += 5; return 1; } return 0;
	case 'n': if (strncmp(*p, "null", 4) == 0) { *p += 4; return 1; } return 0;
	case '[': case '{': {
		char close = **p == '[' ? ']' : '}';
		if (depth >= MAXDEPTH) return 0;
		(*p)++;
		ws(p);
		if (**p == close) { (*p)++; return 1; }
		for (;;) {
			if (close == '}') {
				ws(p);
				if (!jstring(p)) return 0;
				ws(p);
				if (*(*p)++ != ':') return 0;
			}
			if (!jvalue(p, depth + 1)) return 0;
			ws(p);
			if (**p == ',') { (*p)++; continue; }
			if (**p == close) { (*p)++; return 1; }
			return 0;
		}
	}
	default: return jnumber(p, &integer);
	}
}

/* The top-level keys this reader takes. */
static const char *const KEYS[] = {"kind", "index", "sha256", "width", "height", "entries", "blank_in_index", "zero_aware", "tiles"};
#define NKEYS (int)(sizeof KEYS / sizeof *KEYS)

/* text copies the string value at p, its escapes decoded, into out (size bytes with its
 * NUL); 0 when p is not a string, or it holds NUL or more than ASCII, or does not fit. */
static int text(const char *p, char *out, size_t size) {
	if (!p || *p != '"') return 0;
	size_t len = 0;
	int c, r;
	for (p++; (r = jchar(&p, &c)) == 1;) {
		if (c <= 0 || len + 1 >= size) return 0;
		out[len++] = (char)c;
	}
	out[len] = 0;
	return r == 0;
}

/* fields finds where the value of each key of KEYS starts in the top-level object of
 * json (NULL: absent), reading the whole text once; -1 when it is not JSON within the
 * limits, or a key of KEYS is there twice (its escapes decoded, as any JSON reader does). */
static int fields(const char *json, const char *at[NKEYS]) {
	const char *p = json;
	for (int k = 0; k < NKEYS; k++) at[k] = NULL;
	ws(&p);
	if (*p++ != '{') return -1;
	ws(&p);
	if (*p == '}') {
		p++;
	} else {
		for (;;) {
			char key[32];
			ws(&p);
			int known = text(p, key, sizeof key);
			if (!jstring(&p)) return -1;
			ws(&p);
			if (*p++ != ':') return -1;
			ws(&p);
			for (int k = 0; known && k < NKEYS; k++) {
				if (strcmp(KEYS[k], key) == 0) {
					if (at[k]) return -1;
					at[k] = p;
				}
			}
			if (!jvalue(&p, 1)) return -1;
			ws(&p);
			if (*p == ',') {
				p++;
				continue;
			}
			if (*p++ != '}') return -1;
			break;
		}
	}
	ws(&p);
	return *p ? -1 : 0; /* nothing after the object */
}

/* whole reads an integer value at p (no fraction, no exponent) of 0 to max; -1 when it is
 * none, or out of range. */
static long long whole(const char *p, long long max) {
	const char *q = p;
	int integer;
	if (!p || !jnumber(&q, &integer) || !integer || *p == '-') return -1;
	return number(p, max);
}

/* boolean reads true or false at p; -1 when it is neither. */
static int boolean(const char *p) {
	if (p && strncmp(p, "true", 4) == 0) return 1;
	if (p && strncmp(p, "false", 5) == 0) return 0;
	return -1;
}

static int read_sidecar(const char *path, struct sidecar *s) {
	long long n;
	char *json = slurp(path, MAXSIDECAR, &n);
	if (!json) return -1;
	memset(s, 0, sizeof *s);
	const char *at[NKEYS];
	if (fields(json, at) != 0) {
		free(json);
		return -1;
	}
	/* KEYS' order: kind, index, sha256, width, height, entries, blank_in_index, zero_aware, tiles */
	long long w = whole(at[3], MAXCELLS), h = whole(at[4], MAXCELLS);
	s->entries = whole(at[5], LLONG_MAX);
	s->blank_in_index = boolean(at[6]);
	s->zero_aware = boolean(at[7]);
	int ok = text(at[0], s->kind, sizeof s->kind) && text(at[1], s->index, sizeof s->index) &&
		 text(at[2], s->sha256, sizeof s->sha256) && w > 0 && h > 0 && w * h <= MAXCELLS && s->entries > 0 &&
		 strlen(s->sha256) == 64 && strspn(s->sha256, "0123456789abcdef") == 64 && s->blank_in_index >= 0 && s->zero_aware >= 0;
	s->width = (int)w;
	s->height = (int)h;
	s->n = ok ? s->width * s->height : 0;
	const char *p = at[8];
	if (ok && p && *p == '[') {
		for (p++;;) {
			ws(&p);
			if (*p == ']') break;
			long long t = whole(p, MAXCELLS);
			if (t <= 0 || t >= s->n || s->ntiles == s->n) ok = 0;
			for (int i = 0; ok && i < s->ntiles; i++) if (s->tiles[i] == t) ok = 0;
			if (!ok) break;
			s->tiles[s->ntiles++] = (int)t;
			jvalue(&p, 1);
			ws(&p);
			if (*p == ',') p++;
		}
	} else {
		ok = 0;
	}
	free(json);
	return ok && s->ntiles > 0 ? 0 : -1;
}

/* kperm_index ranks the cells of the pattern tiles (and the blank) of a state. */
static long long kperm_index(const struct sidecar *s, const int *cell) {
	int c[MAXCELLS + 1], m = 0;
	for (int i = 0; i < s->ntiles; i++) c[m++] = cell[s->tiles[i]];
	if (s->blank_in_index) c[m++] = cell[0];
	long long index = 0;
	for (int i = 0; i < m; i++) {
		int d = c[i];
		for (int j = 0; j < i; j++) if (c[j] < c[i]) d--;
		index = index * (s->n - i) + d;
	}
	return index;
}

/* kperm_entries is the number of kperm-v1 entries, n!/(n-m)!, or -1 when that is more
 * than a long long holds (24 tiles of 25 cells: 25!). */
static long long kperm_entries(const struct sidecar *s) {
	long long e = 1;
	for (int i = 0, m = s->ntiles + s->blank_in_index; i < m; i++)
		if (!times(e, s->n - i, &e)) return -1;
	return e;
}

/* SHA-256 (FIPS 180-4), to check the values against the sidecar's digest. */
static const uint32_t K256[64] = {
	0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1, 0x923f82a4, 0xab1c5ed5,
	0xd807aa98, 0x12835b01, 0x243185be, 0x550c7dc3, 0x72be5d74, 0x80deb1fe, 0x9bdc06a7, 0xc19bf174,
	0xe49b69c1, 0xefbe4786, 0x0fc19dc6, 0x240ca1cc, 0x2de92c6f, 0x4a7484aa, 0x5cb0a9dc, 0x76f988da,
	0x983e5152, 0xa831c66d, 0xb00327c8, 0xbf597fc7, 0xc6e00bf3, 0xd5a79147, 0x06ca6351, 0x14292967,
	0x27b70a85, 0x2e1b2138, 0x4d2c6dfc, 0x53380d13, 0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85,
	0xa2bfe8a1, 0xa81a664b, 0xc24b8b70, 0xc76c51a3, 0xd192e819, 0xd6990624, 0xf40e3585, 0x106aa070,
	0x19a4c116, 0x1e376c08, 0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a, 0x5b9cca4f, 0x682e6ff3,
	0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208, 0x90befffa, 0xa4506ceb, 0xbef9a3f7, 0xc67178f2};

#define ROR(x, n) ((x) >> (n) | (x) << (32 - (n)))

static void sha256_block(uint32_t h[8], const unsigned char *b) {
	uint32_t w[64], v[8];
	for (int i = 0; i < 16; i++) w[i] = (uint32_t)b[4 * i] << 24 | b[4 * i + 1] << 16 | b[4 * i + 2] << 8 | b[4 * i + 3];
	for (int i = 16; i < 64; i++) {
		uint32_t s0 = ROR(w[i - 15], 7) ^ ROR(w[i - 15], 18) ^ w[i - 15] >> 3;
		uint32_t s1 = ROR(w[i - 2], 17) ^ ROR(w[i - 2], 19) ^ w[i - 2] >> 10;
		w[i] = w[i - 16] + s0 + w[i - 7] + s1;
	}
	memcpy(v, h, sizeof v);
	for (int i = 0; i < 64; i++) {
		uint32_t t1 = v[7] + (ROR(v[4], 6) ^ ROR(v[4], 11) ^ ROR(v[4], 25)) + ((v[4] & v[5]) ^ (~v[4] & v[6])) + K256[i] + w[i];
		uint32_t t2 = (ROR(v[0], 2) ^ ROR(v[0], 13) ^ ROR(v[0], 22)) + ((v[0] & v[1]) ^ (v[0] & v[2]) ^ (v[1] & v[2]));
		memmove(v + 1, v, 7 * sizeof *v);
		v[4] += t1;
		v[0] = t1 + t2;
	}
	for (int i = 0; i < 8; i++) h[i] += v[i];
}

/* sha256_hex writes the digest of data[0..n) as 64 hex digits and a NUL into out. */
static void sha256_hex(const unsigned char *data, long long n, char out[65]) {
	uint32_t h[8] = {0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a, 0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19};
	long long i = 0;
	for (; i + 64 <= n; i += 64) sha256_block(h, data + i);
	unsigned char last[128] = {0};
	int rest = (int)(n - i), len = rest < 56 ? 64 : 128;
	memcpy(last, data + i, rest);
	last[rest] = 0x80;
	unsigned long long bits = (unsigned long long)n * 8;
	for (int k = 0; k < 8; k++) last[len - 1 - k] = (unsigned char)(bits >> (8 * k));
	for (int k = 0; k < len; k += 64) sha256_block(h, last + k);
	for (int k = 0; k < 8; k++) snprintf(out + 8 * k, 9, "%08x", h[k]);
}

/*
 * zperm-v1: index = (first[map] + region) * k! + order, where map is the rank of the set
 * of occupied cells (the sum of C(c_j, j+1) over c_0 < c_1 < ...), first[map] counts the
 * regions of free cells of the maps ranked below it, region numbers the blank's region
 * (regions in the order of their smallest cells) and order ranks the tiles' places.
 */
static long long binom[MAXCELLS + 1][MAXCELLS + 1];
static uint32_t nbr[MAXCELLS];

/* region_of returns the number of the region of free cell c (or the count, c < 0). */
static int region_of(const struct sidecar *s, uint32_t occupied, int c) {
	uint32_t rest = ((1u << s->n) - 1) & ~occupied;
	for (int r = 0; rest; r++) {
		uint32_t reg = rest & -rest, next;
		for (;;) {
			next = reg;
			for (int x = 0; x < s->n; x++) if (reg >> x & 1) next |= nbr[x];
			next &= rest;
			if (next == reg) break;
			reg = next;
		}
		if (c >= 0 && (reg >> c & 1)) return r;
		rest &= ~reg;
		if (!rest && c < 0) return r + 1;
	}
	return 0;
}

/* zperm_bounds sets *lo and *hi to the fewest and most entries a zperm-v1 index of the
 * sidecar's board and tiles may have (each map has one region of free cells at least, and
 * as many as it has free cells at most), before its regions are counted; 0 when they are
 * more than a long long holds. */
static int zperm_bounds(const struct sidecar *s, long long *lo, long long *hi) {
	for (int a = 0; a <= MAXCELLS; a++)
		for (int b = 0; b <= a; b++) binom[a][b] = b == 0 || b == a ? 1 : binom[a - 1][b - 1] + binom[a - 1][b];
	long long fact = 1;
	int fits = 1;
	for (int i = 2; i <= s->ntiles; i++) fits = fits && times(fact, i, &fact);
	int free_cells = s->n - s->ntiles > 0 ? s->n - s->ntiles : 1;
	return fits && times(binom[s->n][s->ntiles], fact, lo) && times(*lo, free_cells, hi);
}

/* zperm_first fills first[0..maps] for the sidecar's board and tile count (zperm_bounds
 * first). */
static long long *zperm_first(const struct sidecar *s) {
	for (int c = 0; c < s->n; c++) {
		int r = c / s->width, k = c % s->width;
		nbr[c] = (r > 0 ? 1u << (c - s->width) : 0) | (r + 1 < s->height ? 1u << (c + s->width) : 0) |
			 (k > 0 ? 1u << (c - 1) : 0) | (k + 1 < s->width ? 1u << (c + 1) : 0);
	}
	long long maps = binom[s->n][s->ntiles];
	long long *first = malloc((maps + 1) * sizeof *first);
	if (!first) return NULL;
	uint32_t mask = (1u << s->ntiles) - 1;
	first[0] = 0;
	for (long long m = 0; m < maps; m++) {
		first[m + 1] = first[m] + region_of(s, mask, -1);
		uint32_t low = mask & -mask, next = mask + low; /* the next mask of k bits */
		mask = next | ((mask ^ next) >> 2) / low;
	}
	return first;
}

static long long zperm_index(const struct sidecar *s, const long long *first, const int *cell) {
	uint32_t occupied = 0;
	for (int i = 0; i < s->ntiles; i++) occupied |= 1u << cell[s->tiles[i]];
	long long m = 0, order = 0, fact = 1;
	for (int c = 0, j = 0; c < s->n; c++) if (occupied >> c & 1) m += binom[c][++j];
	int place[MAXCELLS];
	for (int i = 0; i < s->ntiles; i++) {
		place[i] = 0;
		for (int c = 0; c < cell[s->tiles[i]]; c++) place[i] += occupied >> c & 1;
		int d = place[i];
		for (int j = 0; j < i; j++) if (place[j] < place[i]) d--;
		order = order * (s->ntiles - i) + d;
		fact *= i + 1;
	}
	return (first[m] + region_of(s, occupied, cell[0])) * fact + order;
}

/* parse_state reads the n numbers of a state (each of 0 to n-1 once) as cell[tile]. */
static int parse_state(const char *text, int n, int *cell) {
	int k = 0;
	for (int t = 0; t < n; t++) cell[t] = -1;
	for (const char *p = text;;) {
		while (*p == ' ' || *p == ',' || *p == '/') p++;
		if (!*p) break;
		char *end;
		errno = 0;
		long t = strtol(p, &end, 10);
		if (end == p || errno || t < 0 || t >= n || k == n || cell[t] >= 0) return -1;
		cell[t] = k++;
		p = end;
	}
	return k == n ? 0 : -1;
}

int main(int argc, char **argv) {
	if (argc < 2) {
		fprintf(stderr, "usage: pdbread TABLE.raw [STATE ...]\n");
		return 2;
	}
	char side[4096];
	snprintf(side, sizeof side, "%s.json", argv[1]);
	struct sidecar s;
	if (read_sidecar(side, &s) != 0 || strcmp(s.kind, "pdb") != 0) {
		fprintf(stderr, "pdbread: %s does not describe a pattern database this reader knows\n", side);
		return 1;
	}
	int zero = strcmp(s.index, "zperm-v1") == 0;
	if (!(zero || strcmp(s.index, "kperm-v1") == 0) || zero != s.zero_aware || (zero && s.blank_in_index)) {
		fprintf(stderr, "pdbread: %s: index %s is not one this reader knows\n", side, s.index);
		return 1;
	}
	long long *first = NULL, want, lo, hi;
	unsigned char *values = NULL;
	int status = 1;
	if (zero) {
		/* The size of the index bounded before its regions are counted (seconds for many
		 * tiles). */
		if (!zperm_bounds(&s, &lo, &hi)) {
			fprintf(stderr, "pdbread: %s: an index of %d tiles on %d cells is larger than this reader can hold\n", side, s.ntiles, s.n);
			return 1;
		}
		if (s.entries < lo || s.entries > hi) {
			fprintf(stderr, "pdbread: %s says %lld entries; its index has %lld to %lld\n", side, s.entries, lo, hi);
			return 1;
		}
		struct stat st;
		if (stat(argv[1], &st) != 0 || !S_ISREG(st.st_mode) || st.st_size != s.entries) {
			fprintf(stderr, "pdbread: %s does not hold the %lld entries its sidecar says\n", argv[1], s.entries);
			return 1;
		}
		if (!(first = zperm_first(&s))) {
			fprintf(stderr, "pdbread: out of memory\n");
			return 1;
		}
		long long fact = 1;
		for (int i = 2; i <= s.ntiles; i++) fact *= i; /* fits: zperm_bounds */
		if (!times(first[binom[s.n][s.ntiles]], fact, &want)) want = -1;
	} else {
		want = kperm_entries(&s);
	}
	long long size;
	char digest[65];
	if (want < 0) {
		fprintf(stderr, "pdbread: %s: an index of %d tiles on %d cells is larger than this reader can hold\n", side, s.ntiles, s.n);
		goto out;
	}
	if (s.entries != want) {
		fprintf(stderr, "pdbread: %s says %lld entries; its index has %lld\n", side, s.entries, want);
		goto out;
	}
	values = (unsigned char *)slurp(argv[1], s.entries, &size);
	if (!values || size != s.entries) {
		fprintf(stderr, "pdbread: %s does not hold the %lld entries its sidecar says\n", argv[1], s.entries);
		goto out;
	}
	sha256_hex(values, size, digest);
	if (strcmp(digest, s.sha256) != 0) {
		fprintf(stderr, "pdbread: %s does not match its sidecar's sha256 (damaged?)\n", argv[1]);
		goto out;
	}
	for (int a = 2; a < argc; a++) {
		int cell[MAXCELLS];
		if (parse_state(argv[a], s.n, cell) != 0) {
			fprintf(stderr, "pdbread: \"%s\" is not a state: it needs each number from 0 to %d once\n", argv[a], s.n - 1);
			goto out;
		}
		long long i = zero ? zperm_index(&s, first, cell) : kperm_index(&s, cell);
		printf("value %s: %d\n", argv[a], values[i]);
	}
	long long hist[256] = {0};
	for (long long i = 0; i < size; i++) hist[values[i]]++;
	for (int d = 0; d < 256; d++) if (hist[d]) printf("histogram %d %lld\n", d, hist[d]);
	status = 0;
out:
	free(values);
	free(first);
	return status;
}
