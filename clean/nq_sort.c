#include "clean/clean.h"

#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "files/files.h"

#define DEFAULT_BUDGET ((size_t)256 << 20)
#define MIN_BUDGET ((size_t)64 << 10)
#define MAX_ARENA ((size_t)UINT32_MAX)
#define MIN_READ_BUFFER ((size_t)32 << 10)
/* A run's read buffer when cut from the arena's free space. */
#define ARENA_READ_BUFFER ((size_t)1 << 20)
/* A run file's stdio buffer: given explicitly, as glibc ignores the size
 * setvbuf is told when it allocates the buffer itself (4 KiB writes). */
#define WRITE_BUFFER ((size_t)1 << 20)
#define PATH_MAX_LEN 4096
/* Open run files while merging: well below the usual 1024 descriptors. */
#define MAX_FAN_IN 256
/* Lines are sorted in segments of at least this many as they come (the
 * last one when the arena is full or the input ends); about
 * SEGMENTS_PER_ARENA fill the arena. */
#define MIN_SEGMENT 8192
#define SEGMENTS_PER_ARENA 8

/* One line in the arena. key caches 7 bytes of the line from the current
 * sort depth (big-endian, so integer order is byte order) and, in its low
 * byte, how many of those 7 bytes exist: a line that ends inside the slice
 * sorts before one that goes on, and two lines with equal keys and a count
 * below 7 are equal. len excludes the '\n'. */
typedef struct {
  uint64_t key;
  uint32_t off;
  uint32_t len;
} Entry;

struct LwSorter {
  LwSortOptions options;
  char *arena;       /* line bytes from the front, entries from the back */
  size_t arena_size; /* bytes usable for both */
  size_t used;       /* line bytes */
  size_t count;      /* entries */
  char **runs;       /* paths of the run files on disk */
  size_t n_runs;
  size_t runs_cap;
  LwSortStats stats;
  char *tmp_dir; /* owned copy of options.data_dir (or the default) */
  char *write_buffer; /* the open run file's (one at a time), WRITE_BUFFER */

  /* Sorted segments of the arena's entries, in insertion order: [start,
   * start+len) of entry indices (entry i lives at the arena's end minus
   * i + 1), merged at the end. */
  size_t *seg_start;
  size_t *seg_len;
  size_t n_segs, segs_cap;
  size_t submitted;  /* entries covered by segments */
  size_t seg_target; /* entries in the next segment */
};

/* ---- keys and comparison ------------------------------------------------ */

static inline uint64_t load_key(const char *base, const Entry *e, size_t depth)
{
  const unsigned char *p = (const unsigned char *)base + e->off + depth;
  size_t rem = e->len > depth ? e->len - depth : 0;
  if (rem >= 7) {
    /* 8 readable bytes: 7 of the line, then the line or its '\n'. */
    uint64_t v;
    memcpy(&v, p, 8);
    v = __builtin_bswap64(v);
    return (v & ~(uint64_t)0xFF) | 7;
  }
  uint64_t v = 0;
  for (size_t i = 0; i < rem; ++i) {
    v |= (uint64_t)p[i] << (56 - 8 * i);
  }
  return v | rem;
}

static inline int compare_bytes(const char *a, size_t alen, const char *b, size_t blen)
{
  int c = memcmp(a, b, alen < blen ? alen : blen);
  if (c) {
    return c;
  }
  return alen < blen ? -1 : alen > blen;
}

/* Compares two entries known to be equal before depth. */
static inline int compare_entries(const char *base, const Entry *a, const Entry *b,
                                  size_t depth)
{
  if (a->key != b->key) {
    return a->key < b->key ? -1 : 1;
  }
  if ((a->key & 0xFF) < 7) {
    return 0;
  }
  size_t d = depth + 7;
  return compare_bytes(base + a->off + d, a->len - d, base + b->off + d, b->len - d);
}

static void insertion_sort(const char *base, Entry *a, size_t n, size_t depth)
{
  for (size_t i = 1; i < n; ++i) {
    Entry t = a[i];
    size_t j = i;
    while (j > 0 && compare_entries(base, &t, &a[j - 1], depth) < 0) {
      a[j] = a[j - 1];
      --j;
    }
    a[j] = t;
  }
}

static void sift_down(const char *base, Entry *a, size_t n, size_t i, size_t depth)
{
  for (;;) {
    size_t c = 2 * i + 1;
    if (c >= n) {
      return;
    }
    if (c + 1 < n && compare_entries(base, &a[c], &a[c + 1], depth) < 0) {
      ++c;
    }
    if (compare_entries(base, &a[i], &a[c], depth) >= 0) {
      return;
    }
    Entry t = a[i];
    a[i] = a[c];
    a[c] = t;
    i = c;
  }
}

/* The fallback when quicksort keeps choosing bad pivots (hostile input):
 * heapsort is O(n log n) whatever the data. */
static void heap_sort(const char *base, Entry *a, size_t n, size_t depth)
{
  for (size_t i = n / 2; i-- > 0;) {
    sift_down(base, a, n, i, depth);
  }
  for (size_t end = n; end-- > 1;) {
    Entry t = a[0];
    a[0] = a[end];
    a[end] = t;
    sift_down(base, a, end, 0, depth);
  }
}

static inline uint64_t median3(uint64_t a, uint64_t b, uint64_t c)
{
  if (a < b) {
    return b < c ? b : (a < c ? c : a);
  }
  return a < c ? a : (b < c ? c : b);
}

static unsigned depth_limit(size_t n)
{
  unsigned bits = 0;
  while (n) {
    ++bits;
    n >>= 1;
  }
  return 2 * bits + 8;
}

/* Multikey quicksort (Bentley & Sedgewick) on cached 7-byte slices: the
 * partitioning runs over the compact entry array, and only lines that share
 * a 7-byte slice are looked at again, one slice deeper. */
static void mkqsort(const char *base, Entry *a, size_t n, size_t depth, unsigned limit)
{
  for (;;) {
    if (n < 16) {
      insertion_sort(base, a, n, depth);
      return;
    }
    if (limit == 0) {
      heap_sort(base, a, n, depth);
      return;
    }
    --limit;
    uint64_t pivot = median3(a[0].key, a[n / 2].key, a[n - 1].key);
    size_t lt = 0, i = 0, gt = n;
    while (i < gt) {
      if (a[i].key < pivot) {
        Entry t = a[lt];
        a[lt++] = a[i];
        a[i++] = t;
      } else if (a[i].key > pivot) {
        Entry t = a[--gt];
        a[gt] = a[i];
        a[i] = t;
      } else {
        ++i;
      }
    }
    mkqsort(base, a, lt, depth, limit);
    mkqsort(base, a + gt, n - gt, depth, limit);
    if ((pivot & 0xFF) < 7) {
      return; /* the middle lines all end here: they are equal */
    }
    a += lt;
    n = gt - lt;
    depth += 7;
    for (size_t k = 0; k < n; ++k) {
      a[k].key = load_key(base, &a[k], depth);
    }
    limit = depth_limit(n);
  }
}

/* ---- the sorter --------------------------------------------------------- */

static Entry *entries(const LwSorter *s)
{
  return (Entry *)(s->arena + s->arena_size) - s->count;
}

/* The entries of segment i (contiguous, the newest first). */
static Entry *segment(const LwSorter *s, size_t start, size_t len)
{
  return (Entry *)(s->arena + s->arena_size) - (start + len);
}

static bool add_segment(LwSorter *s, size_t start, size_t len)
{
  if (s->n_segs == s->segs_cap) {
    size_t cap = s->segs_cap ? 2 * s->segs_cap : 16;
    size_t *a = realloc(s->seg_start, cap * sizeof(*a));
    if (!a) {
      return false;
    }
    s->seg_start = a;
    size_t *b = realloc(s->seg_len, cap * sizeof(*b));
    if (!b) {
      return false;
    }
    s->seg_len = b;
    s->segs_cap = cap;
  }
  s->seg_start[s->n_segs] = start;
  s->seg_len[s->n_segs] = len;
  s->n_segs++;
  return true;
}

/* Sorts the entries added since the last segment, while they are still in
 * the cache. (A thread of its own for this did no better: the sorter runs on
 * the line queue's thread, beside the parser's, and on two cores a fourth
 * busy thread only took turns with the parser.) */
static void submit_segment(LwSorter *s)
{
  size_t len = s->count - s->submitted;
  mkqsort(s->arena, segment(s, s->submitted, len), len, 0, depth_limit(len));
  if (!add_segment(s, s->submitted, len)) {
    return; /* no memory: these lines join the last segment, sorted again */
  }
  s->submitted = s->count;
  /* The next segment: about 1/SEGMENTS_PER_ARENA of what the arena holds at
   * the lines' average size so far. */
  size_t per_line = s->used / s->count + sizeof(Entry);
  size_t target = s->arena_size / per_line / SEGMENTS_PER_ARENA;
  s->seg_target = target > MIN_SEGMENT ? target : MIN_SEGMENT;
}

/* Sorts what is left after the last segment: afterwards every segment is
 * sorted. */
static bool sort_segments(LwSorter *s)
{
  size_t len = s->count - s->submitted;
  if (len) {
    Entry *e = segment(s, s->submitted, len);
    mkqsort(s->arena, e, len, 0, depth_limit(len));
  }
  bool ok = !len || add_segment(s, s->submitted, len);
  s->submitted = s->count;
  return ok;
}

static void clear_segments(LwSorter *s)
{
  s->n_segs = 0;
  s->submitted = 0;
}

LwSorter *lw_sorter_new(const LwSortOptions *options)
{
  LwSorter *s = calloc(1, sizeof(*s));
  if (!s) {
    return NULL;
  }
  if (options) {
    s->options = *options;
  }
  size_t budget = s->options.memory_budget ? s->options.memory_budget : DEFAULT_BUDGET;
  if (budget < MIN_BUDGET) {
    budget = MIN_BUDGET;
  }
  s->options.memory_budget = budget;
  size_t arena = budget < MAX_ARENA ? budget : MAX_ARENA;
  s->arena_size = arena & ~(size_t)(sizeof(Entry) - 1);
  const char *dir = s->options.data_dir;
  if (!dir || !*dir) {
    dir = getenv("TMPDIR");
    if (!dir || !*dir) {
      dir = "/tmp";
    }
  }
  s->tmp_dir = strdup(dir);
  /* The arena's pages are only touched as lines arrive, so a small input
   * costs little even with a large budget. */
  s->arena = malloc(s->arena_size);
  if (!s->tmp_dir || !s->arena) {
    lw_sorter_free(s);
    return NULL;
  }
  s->options.data_dir = s->tmp_dir;
  s->seg_target = MIN_SEGMENT;
  return s;
}

void lw_sorter_free(LwSorter *s)
{
  if (!s) {
    return;
  }
  free(s->seg_start);
  free(s->seg_len);
  for (size_t i = 0; i < s->n_runs; ++i) {
    unlink(s->runs[i]);
    free(s->runs[i]);
  }
  free(s->runs);
  free(s->arena);
  free(s->tmp_dir);
  free(s->write_buffer);
  free(s);
}

LwSortStats lw_sorter_stats(const LwSorter *s)
{
  return s->stats;
}

/* Opens a new run file in DATA/tmp and records its path at once, so that
 * lw_sorter_free removes it whatever happens next. */
static LwStatus run_create(LwSorter *s, FILE **out, LwError *err)
{
  if (s->n_runs == s->runs_cap) {
    size_t cap = s->runs_cap ? 2 * s->runs_cap : 16;
    char **runs = realloc(s->runs, cap * sizeof(*runs));
    if (!runs) {
      return lw_error_set(err, LW_ERR_NOMEM, "out of memory for run list");
    }
    s->runs = runs;
    s->runs_cap = cap;
  }
  char path[PATH_MAX_LEN];
  LW_TRY(lw_store_tmpfile(s->tmp_dir, path, sizeof(path), out, err));
  s->runs[s->n_runs] = strdup(path);
  if (!s->runs[s->n_runs]) {
    fclose(*out);
    unlink(path);
    return lw_error_set(err, LW_ERR_NOMEM, "out of memory for run path");
  }
  s->n_runs++;
  if (!s->write_buffer) {
    s->write_buffer = malloc(WRITE_BUFFER); /* without it: stdio's own */
  }
  if (s->write_buffer) {
    setvbuf(*out, s->write_buffer, _IOFBF, WRITE_BUFFER);
  }
  return LW_OK;
}

static LwStatus run_close(FILE *f, const char *path, LwError *err)
{
  bool bad = ferror(f) != 0;
  if (fclose(f) != 0 || bad) {
    return lw_error_set(err, LW_ERR_IO, "cannot write sort run %s: %s", path,
                        strerror(errno));
  }
  return LW_OK;
}

/* Sorts every segment of the arena (see sort_segments). */
static LwStatus sort_arena(LwSorter *s, LwError *err)
{
  if (!sort_segments(s)) {
    return lw_error_set(err, LW_ERR_NOMEM, "out of memory sorting");
  }
  return LW_OK;
}

static inline bool same_line(const char *base, const Entry *a, const Entry *b)
{
  return a->len == b->len && !memcmp(base + a->off, base + b->off, a->len);
}

static inline int entry_cmp(const char *base, const Entry *a, const Entry *b)
{
  return compare_bytes(base + a->off, a->len, base + b->off, b->len);
}

typedef struct {
  const Entry *cur, *end;
} Cursor;

static void cursor_down(const char *base, Cursor *h, size_t n, size_t i)
{
  for (;;) {
    size_t c = 2 * i + 1;
    if (c >= n) {
      return;
    }
    if (c + 1 < n && entry_cmp(base, h[c + 1].cur, h[c].cur) < 0) {
      ++c;
    }
    if (entry_cmp(base, h[i].cur, h[c].cur) <= 0) {
      return;
    }
    Cursor t = h[i];
    h[i] = h[c];
    h[c] = t;
    i = c;
  }
}

/* Hands the distinct lines of the sorted segments to sink, in order: a
 * k-way merge of the segments in memory. */
static LwStatus emit_arena(LwSorter *s, LwLineSink sink, void *handle,
                           unsigned long long *out_lines, unsigned long long *out_bytes)
{
  size_t k = s->n_segs;
  Cursor *h = malloc((k ? k : 1) * sizeof(*h));
  if (!h) {
    return LW_ERR_NOMEM;
  }
  size_t live = 0;
  for (size_t i = 0; i < k; ++i) {
    const Entry *e = segment(s, s->seg_start[i], s->seg_len[i]);
    if (s->seg_len[i]) {
      h[live++] = (Cursor){e, e + s->seg_len[i]};
    }
  }
  for (size_t i = live / 2; i-- > 0;) {
    cursor_down(s->arena, h, live, i);
  }
  const Entry *prev = NULL;
  LwStatus st = LW_OK;
  while (live > 0) {
    const Entry *cur = h[0].cur;
    if (!prev || !same_line(s->arena, prev, cur)) {
      st = sink(handle, s->arena + cur->off, (size_t)cur->len + 1);
      if (st > LW_NOTHING) {
        break;
      }
      st = LW_OK;
      ++*out_lines;
      *out_bytes += (size_t)cur->len + 1;
      prev = cur;
    }
    if (++h[0].cur == h[0].end) {
      h[0] = h[--live];
    }
    cursor_down(s->arena, h, live, 0);
  }
  free(h);
  return st;
}

static LwStatus file_sink(void *handle, const char *line, size_t len)
{
  return fwrite(line, 1, len, (FILE *)handle) == len ? LW_OK : LW_ERR_IO;
}

/* Sorts the arena and writes it as one run, then empties the arena. */
static LwStatus spill(LwSorter *s, LwError *err)
{
  if (s->count == 0) {
    return LW_OK;
  }
  LW_TRY(sort_arena(s, err));
  FILE *f = NULL;
  LW_TRY(run_create(s, &f, err));
  unsigned long long lines = 0, bytes = 0;
  LwStatus st = emit_arena(s, file_sink, f, &lines, &bytes);
  LwStatus cst = run_close(f, s->runs[s->n_runs - 1], err);
  if (st != LW_OK) {
    return lw_error_set(err, st, "cannot write sort run %s: %s", s->runs[s->n_runs - 1],
                        strerror(errno));
  }
  LW_TRY(cst);
  s->stats.runs++;
  s->used = 0;
  s->count = 0;
  clear_segments(s);
  return LW_OK;
}

/* A line too long for the arena is a sorted run all by itself. */
static LwStatus spill_single(LwSorter *s, const char *line, size_t len, LwError *err)
{
  FILE *f = NULL;
  LW_TRY(run_create(s, &f, err));
  fwrite(line, 1, len, f);
  if (line[len - 1] != '\n') {
    fputc('\n', f);
  }
  LW_TRY(run_close(f, s->runs[s->n_runs - 1], err));
  s->stats.runs++;
  return LW_OK;
}

LwStatus lw_sorter_add(LwSorter *s, const char *line, size_t len, LwError *err)
{
  if (len == 0) {
    return LW_OK;
  }
  size_t content = line[len - 1] == '\n' ? len - 1 : len;
  size_t need = content + 1 + sizeof(Entry);
  s->stats.lines_in++;
  if (s->used + need + (s->count + 1) * sizeof(Entry) > s->arena_size) {
    LW_TRY(spill(s, err));
    if (need + sizeof(Entry) > s->arena_size) {
      return spill_single(s, line, len, err);
    }
  }
  char *dst = s->arena + s->used;
  memcpy(dst, line, content);
  dst[content] = '\n';
  s->count++;
  Entry *e = entries(s);
  e->off = (uint32_t)s->used;
  e->len = (uint32_t)content;
  e->key = load_key(s->arena, e, 0);
  s->used += content + 1;
  if (s->count - s->submitted >= s->seg_target) {
    submit_segment(s);
  }
  return LW_OK;
}

/* ---- merging runs ------------------------------------------------------- */

/* A sorted run on disk (f), or a sorted segment of the arena (seg). */
typedef struct {
  FILE *f;
  const char *path;
  char *buf;
  bool owned; /* buf is ours (else a piece of the arena's free space) */
  size_t cap, start, end;
  bool eof;
  const char *arena;
  const Entry *seg, *seg_end;
  const char *line; /* the current line, '\n' included */
  size_t len;
} RunReader;

/* Doubles r's buffer (a line longer than it: only giant single lines). */
static bool reader_grow(RunReader *r)
{
  char *nb = r->owned ? realloc(r->buf, 2 * r->cap) : malloc(2 * r->cap);
  if (!nb) {
    return false;
  }
  if (!r->owned) {
    memcpy(nb, r->buf, r->end);
  }
  r->buf = nb;
  r->owned = true;
  r->cap *= 2;
  return true;
}

/* Moves r to its next line; false at the end of the run (or on error). */
static bool reader_next(RunReader *r, LwError *err, LwStatus *st)
{
  if (r->seg) {
    if (r->seg == r->seg_end) {
      return false;
    }
    r->line = r->arena + r->seg->off;
    r->len = (size_t)r->seg->len + 1;
    r->seg++;
    return true;
  }
  for (;;) {
    char *nl = memchr(r->buf + r->start, '\n', r->end - r->start);
    if (nl) {
      r->line = r->buf + r->start;
      r->len = (size_t)(nl - r->line) + 1;
      r->start += r->len;
      return true;
    }
    if (r->eof) {
      return false; /* runs always end with '\n' */
    }
    if (r->start > 0) {
      memmove(r->buf, r->buf + r->start, r->end - r->start);
      r->end -= r->start;
      r->start = 0;
    }
    if (r->end == r->cap && !reader_grow(r)) {
      *st = lw_error_set(err, LW_ERR_NOMEM, "out of memory reading a run");
      return false;
    }
    size_t n = fread(r->buf + r->end, 1, r->cap - r->end, r->f);
    r->end += n;
    if (n == 0) {
      if (ferror(r->f)) {
        *st = lw_error_set(err, LW_ERR_IO, "cannot read sort run %s", r->path);
        return false;
      }
      r->eof = true;
    }
  }
}

static inline int reader_cmp(const RunReader *a, const RunReader *b)
{
  return compare_bytes(a->line, a->len - 1, b->line, b->len - 1);
}

static void heap_down(RunReader **h, size_t n, size_t i)
{
  for (;;) {
    size_t c = 2 * i + 1;
    if (c >= n) {
      return;
    }
    if (c + 1 < n && reader_cmp(h[c + 1], h[c]) < 0) {
      ++c;
    }
    if (reader_cmp(h[i], h[c]) <= 0) {
      return;
    }
    RunReader *t = h[i];
    h[i] = h[c];
    h[c] = t;
    i = c;
  }
}

/* The arena's free space between the line bytes and the entries, aligned;
 * its size in *size. */
static char *arena_gap(const LwSorter *s, size_t *size)
{
  uintptr_t from = ((uintptr_t)(s->arena + s->used) + 63) & ~(uintptr_t)63;
  uintptr_t to = (uintptr_t)entries(s);
  if (size) {
    *size = to > from ? (size_t)(to - from) : 0;
  }
  return (char *)from;
}

/* The read buffer of each run when the arena's free space holds them. */
static size_t arena_buffer(const LwSorter *s)
{
  size_t gap;
  arena_gap(s, &gap);
  size_t each = (gap / s->n_runs) & ~(size_t)63;
  return each > ARENA_READ_BUFFER ? ARENA_READ_BUFFER : each;
}

/* Whether the final merge can keep the last lines in the arena: the runs
 * need no merge pass of their own, and the arena's free space holds a
 * read buffer for each. */
static bool last_arena_stays(const LwSorter *s)
{
  size_t max_runs = s->options.memory_budget / MIN_READ_BUFFER - 1;
  return s->n_runs < MAX_FAN_IN && s->n_runs < max_runs &&
         arena_buffer(s) >= MIN_READ_BUFFER;
}

typedef struct {
  char *data;
  size_t len, cap;
} LastLine;

static bool last_set(LastLine *l, const char *line, size_t len)
{
  if (len > l->cap) {
    size_t cap = len * 2;
    char *d = realloc(l->data, cap);
    if (!d) {
      return false;
    }
    l->data = d;
    l->cap = cap;
  }
  memcpy(l->data, line, len);
  l->len = len;
  return true;
}

/* Merges runs [first, first + n) into sink, dropping duplicates; with
 * in_arena, the sorted segments of the arena too, the runs' read buffers
 * then cut from the arena's free space (see arena_gap). */
static LwStatus merge_runs(LwSorter *s, size_t first, size_t n, size_t buffer_size,
                           bool in_arena, LwLineSink sink, void *handle,
                           unsigned long long *out_lines, unsigned long long *out_bytes,
                           LwError *err)
{
  LwStatus st = LW_OK;
  size_t n_segs = in_arena ? s->n_segs : 0;
  RunReader *readers = calloc(n + n_segs, sizeof(*readers));
  RunReader **heap = calloc(n + n_segs, sizeof(*heap));
  LastLine last = {0};
  size_t live = 0;
  char *gap = in_arena ? arena_gap(s, NULL) : NULL;
  if (!readers || !heap) {
    st = lw_error_set(err, LW_ERR_NOMEM, "out of memory merging runs");
    goto done;
  }
  for (size_t i = 0; i < n_segs; ++i) {
    RunReader *r = &readers[n + i];
    r->arena = s->arena;
    r->seg = segment(s, s->seg_start[i], s->seg_len[i]);
    r->seg_end = r->seg + s->seg_len[i];
    if (reader_next(r, err, &st)) {
      heap[live++] = r;
    }
  }
  for (size_t i = 0; i < n; ++i) {
    RunReader *r = &readers[i];
    r->path = s->runs[first + i];
    r->f = fopen(r->path, "rb");
    r->owned = !gap;
    r->buf = gap ? gap + i * buffer_size : malloc(buffer_size);
    r->cap = buffer_size;
    if (!r->f || !r->buf) {
      st = lw_error_set(err, r->f ? LW_ERR_NOMEM : LW_ERR_IO, "cannot open sort run %s: %s",
                        r->path, strerror(errno));
      goto done;
    }
    setvbuf(r->f, NULL, _IONBF, 0); /* we read in large blocks ourselves */
    if (reader_next(r, err, &st)) {
      heap[live++] = r;
    } else if (st != LW_OK) {
      goto done;
    }
  }
  for (size_t i = live / 2; i-- > 0;) {
    heap_down(heap, live, i);
  }
  bool have_last = false;
  while (live > 0) {
    RunReader *r = heap[0];
    if (!have_last || r->len != last.len || memcmp(r->line, last.data, r->len)) {
      if (!last_set(&last, r->line, r->len)) {
        st = lw_error_set(err, LW_ERR_NOMEM, "out of memory merging runs");
        goto done;
      }
      have_last = true;
      st = sink(handle, r->line, r->len);
      if (st > LW_NOTHING) {
        if (err && err->status == LW_OK) {
          lw_error_set(err, st, "sort output failed");
        }
        goto done;
      }
      st = LW_OK;
      ++*out_lines;
      *out_bytes += r->len;
    }
    if (!reader_next(r, err, &st)) {
      if (st != LW_OK) {
        goto done;
      }
      heap[0] = heap[--live];
    }
    heap_down(heap, live, 0);
  }
done:
  if (readers) {
    for (size_t i = 0; i < n; ++i) {
      if (readers[i].f) {
        fclose(readers[i].f);
      }
      if (readers[i].owned) {
        free(readers[i].buf);
      }
    }
  }
  free(readers);
  free(heap);
  free(last.data);
  return st;
}

/* Removes runs [first, first + n) from disk and from the list. */
static void drop_runs(LwSorter *s, size_t first, size_t n)
{
  for (size_t i = first; i < first + n; ++i) {
    unlink(s->runs[i]);
    free(s->runs[i]);
  }
  memmove(s->runs + first, s->runs + first + n, (s->n_runs - first - n) * sizeof(*s->runs));
  s->n_runs -= n;
}

LwStatus lw_sorter_finish(LwSorter *s, LwLineSink sink, void *handle, LwError *err)
{
  LwSortStats *stats = &s->stats;
  if (s->n_runs == 0) {
    LW_TRY(sort_arena(s, err));
    LwStatus st = emit_arena(s, sink, handle, &stats->lines_out, &stats->bytes_out);
    stats->duplicates = stats->lines_in - stats->lines_out;
    if (st > LW_NOTHING && err && err->status == LW_OK) {
      lw_error_set(err, st, "sort output failed");
    }
    return st > LW_NOTHING ? st : LW_OK;
  }
  if (s->count && last_arena_stays(s)) {
    /* The last lines are merged from the arena as they are, the runs read
     * through its free space: no run written and read back for them. */
    LW_TRY(sort_arena(s, err));
    size_t n = s->n_runs;
    LwStatus st = merge_runs(s, 0, n, arena_buffer(s), true, sink, handle,
                             &stats->lines_out, &stats->bytes_out, err);
    stats->merge_passes++;
    stats->duplicates = stats->lines_in - stats->lines_out;
    drop_runs(s, 0, n);
    return st;
  }
  LW_TRY(spill(s, err));
  /* The arena is no longer needed: its memory goes to the read buffers. */
  free(s->arena);
  s->arena = NULL;
  s->arena_size = 0;
  size_t budget = s->options.memory_budget;
  size_t fan_in = budget / MIN_READ_BUFFER - 1;
  if (fan_in < 2) {
    fan_in = 2;
  }
  if (fan_in > MAX_FAN_IN) {
    fan_in = MAX_FAN_IN;
  }
  while (s->n_runs > fan_in) {
    /* Too many runs for the budget's read buffers: merge the oldest into
     * one longer run first. */
    FILE *f = NULL;
    LW_TRY(run_create(s, &f, err));
    unsigned long long lines = 0, bytes = 0;
    LwStatus st = merge_runs(s, 0, fan_in, budget / (fan_in + 1), false, file_sink, f,
                             &lines, &bytes, err);
    LwStatus cst = run_close(f, s->runs[s->n_runs - 1], err);
    LW_TRY(st);
    LW_TRY(cst);
    drop_runs(s, 0, fan_in);
    stats->merge_passes++;
  }
  size_t n = s->n_runs;
  LwStatus st = merge_runs(s, 0, n, budget / (n + 1), false, sink, handle,
                           &stats->lines_out, &stats->bytes_out, err);
  stats->merge_passes++;
  stats->duplicates = stats->lines_in - stats->lines_out;
  drop_runs(s, 0, n);
  return st;
}
