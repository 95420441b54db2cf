#include "graph_store/graph_store.h"

#include <errno.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/base.h"
#include "files/files.h"

#define DEFAULT_MAX_LINE (64u * 1024 * 1024)

/* ---- canonical line anatomy ---- */

/* Skips a term without spaces (IRI or blank node) starting at i (memchr:
 * every line of every import goes through here). */
static size_t skip_plain_term(const char *line, size_t len, size_t i)
{
  const char *space = i < len ? memchr(line + i, ' ', len - i) : NULL;
  return space ? (size_t)(space - line) : len;
}

/* Skips an object term (a literal may hold spaces) starting at i. A quote
 * ends the literal unless an odd run of backslashes escapes it (each escape
 * is a backslash and one character: \\ pairs up). */
static size_t skip_object(const char *line, size_t len, size_t i)
{
  if (i >= len || line[i] != '"') {
    return skip_plain_term(line, len, i);
  }
  size_t start = ++i;
  for (;;) {
    const char *quote = i < len ? memchr(line + i, '"', len - i) : NULL;
    if (!quote) {
      return len + 1; /* unterminated */
    }
    i = (size_t)(quote - line);
    size_t run = 0;
    while (i - run > start && line[i - run - 1] == '\\') {
      ++run;
    }
    if (run % 2 == 0) {
      return skip_plain_term(line, len, i + 1); /* @lang or ^^<datatype> */
    }
    ++i;
  }
}

bool lw_nquads_split_line(const char *line, size_t len, size_t *triple_len,
                          size_t *graph_start, size_t *graph_len)
{
  size_t i = skip_plain_term(line, len, 0);
  if (i >= len) {
    return false;
  }
  i = skip_plain_term(line, len, i + 1);
  if (i >= len) {
    return false;
  }
  i = skip_object(line, len, i + 1);
  if (i >= len) {
    return false;
  }
  *triple_len = i;
  *graph_start = 0;
  *graph_len = 0;
  if (len - i == 2 && line[i + 1] == '.') {
    return true;
  }
  size_t g = i + 1;
  size_t g_end = skip_plain_term(line, len, g);
  if (len - g_end != 2 || line[g_end + 1] != '.') {
    return false;
  }
  *graph_start = g;
  *graph_len = g_end - g;
  return true;
}

/* ---- one input: a line reader and its current line, rewritten ---- */

/* A line without its "\n". */
typedef LwBuf Line;

typedef struct {
  LwLineReader *reader;
  LwGraphCursor *cursor; /* instead of reader: a subject's triples in the db */
  Line cur;              /* current line, with the provider's graph; its "\n"
                            follows at cur.data[cur.len] (not counted) */
  Line spare;            /* the next line is built here, then swapped with cur
                            (so it holds the line before cur) */
  bool same_as_before;   /* cur equals the line before it in this input */
  bool done;
  const char *path;
} Source;

static int compare(const char *a, size_t alen, const char *b, size_t blen)
{
  int c = memcmp(a, b, alen < blen ? alen : blen);
  return c ? c : (alen > blen) - (alen < blen);
}

static int compare_lines(const Line *a, const Line *b)
{
  return compare(a->data, a->len, b->data, b->len);
}

static size_t subject_len(const Line *line)
{
  return skip_plain_term(line->data, line->len, 0) + 1; /* with its space */
}

static int compare_subjects(const Line *a, const Line *b)
{
  return compare(a->data, subject_len(a), b->data, subject_len(b));
}

/* The subject of line ("S ", with its space) into subject. */
static LwStatus subject_copy(Line *subject, const Line *line, LwError *err)
{
  lw_buf_reset(subject);
  return lw_buf_append(subject, line->data, subject_len(line))
           ? lw_error_set(err, LW_ERR_NOMEM, "out of memory")
           : LW_OK;
}

/* True when line is about subject ("S "): a prefix test, no scanning. */
static bool is_about(const Line *line, const Line *subject)
{
  return line->len >= subject->len && !memcmp(line->data, subject->data, subject->len);
}

/* Stores "TRIPLE GRAPH ." in line, followed by a "\n" not counted in its
 * length (so that the line goes to an output in one piece). */
static LwStatus line_build(Line *line, const char *triple, size_t tlen,
                           const char *graph_term, size_t glen, LwError *err)
{
  size_t len = tlen + 1 + glen + 3;
  lw_buf_reset(line);
  if (lw_buf_reserve(line, len)) {
    return lw_error_set(err, LW_ERR_NOMEM, "out of memory");
  }
  char *p = line->data;
  memcpy(p, triple, tlen);
  p[tlen] = ' ';
  memcpy(p + tlen + 1, graph_term, glen);
  memcpy(p + tlen + 1 + glen, " .\n", 4); /* and the buffer's NUL */
  line->len = len - 1;
  return LW_OK;
}

typedef struct {
  const char *graph_term; /* "<IRI>" */
  size_t graph_len;
  unsigned long long *foreign;
} Rewrite;

/* Advances s to its next line, rewritten into the provider's graph, and
 * checks that the input is sorted (the merge depends on it). */
static LwStatus source_next(Source *s, const Rewrite *rw, LwError *err)
{
  const char *line;
  size_t len;
  if (s->cursor) {
    LwStatus st = lw_graph_cursor_next(s->cursor, &line, &len, err);
    s->done = st == LW_NOTHING;
    return st == LW_OK ? line_build(&s->cur, line, len, rw->graph_term, rw->graph_len, err)
           : s->done   ? LW_OK
                       : st;
  }
  LwStatus st = lw_line_reader_next(s->reader, &line, &len, err);
  if (st == LW_NOTHING) {
    s->done = true;
    return LW_OK;
  }
  LW_TRY(st);
  size_t tlen, gstart, glen;
  if (!lw_nquads_split_line(line, len, &tlen, &gstart, &glen)) {
    return lw_error_set(err, LW_ERR_FORMAT, "%s: not a canonical N-Quads line: %.80s",
                        s->path, line);
  }
  if (glen && rw->foreign &&
      (glen != rw->graph_len || memcmp(line + gstart, rw->graph_term, glen))) {
    ++*rw->foreign;
  }
  LW_TRY(line_build(&s->spare, line, tlen, rw->graph_term, rw->graph_len, err));
  int order = s->cur.len ? compare_lines(&s->cur, &s->spare) : -1;
  if (order > 0) {
    return lw_error_set(err, LW_ERR_FORMAT, "%s: lines are not sorted", s->path);
  }
  s->same_as_before = order == 0;
  Line t = s->cur;
  s->cur = s->spare;
  s->spare = t;
  return LW_OK;
}

static LwStatus source_open(Source *s, const char *path, size_t max_line, const Rewrite *rw,
                            LwError *err)
{
  memset(s, 0, sizeof(*s));
  s->path = path;
  s->reader = lw_line_reader_open(path, max_line, err);
  if (!s->reader) {
    return err ? err->status : LW_ERR_IO;
  }
  return source_next(s, rw, err);
}

static void source_close(Source *s)
{
  lw_line_reader_close(s->reader);
  lw_graph_cursor_close(s->cursor);
  free(s->cur.data);
  free(s->spare.data);
}

/* ---- the harvest: a k-way merge of the clean files, without duplicates ---- */

typedef struct {
  Source *sources;
  size_t count;
  size_t *heap; /* indices of live sources, smallest current line first */
  size_t heap_len;
  const Line *cur; /* the merged stream's current line: the current line of
                      sources[heap[0]], until the next harvest_next */
  bool done;
  Rewrite rw;
} Harvest;

static bool heap_less(const Harvest *h, size_t a, size_t b)
{
  return compare_lines(&h->sources[h->heap[a]].cur, &h->sources[h->heap[b]].cur) < 0;
}

static void heap_swap(Harvest *h, size_t a, size_t b)
{
  size_t t = h->heap[a];
  h->heap[a] = h->heap[b];
  h->heap[b] = t;
}

static void heap_down(Harvest *h, size_t i)
{
  for (;;) {
    size_t l = 2 * i + 1, r = l + 1, m = i;
    if (l < h->heap_len && heap_less(h, l, m)) {
      m = l;
    }
    if (r < h->heap_len && heap_less(h, r, m)) {
      m = r;
    }
    if (m == i) {
      return;
    }
    heap_swap(h, i, m);
    i = m;
  }
}

static LwStatus line_copy(Line *dst, const Line *src, LwError *err)
{
  lw_buf_reset(dst);
  return lw_buf_append(dst, src->data, src->len)
           ? lw_error_set(err, LW_ERR_NOMEM, "out of memory")
           : LW_OK;
}

/* Advances the source of the current line; *before: where that line is now
 * (the source's spare, or still its cur when the source ended). */
static LwStatus advance_top(Harvest *h, const Line **before, bool *same_source,
                            LwError *err)
{
  Source *top = &h->sources[h->heap[0]];
  LW_TRY(source_next(top, &h->rw, err));
  *before = top->done ? &top->cur : &top->spare;
  if (top->done) {
    h->heap[0] = h->heap[--h->heap_len];
  }
  heap_down(h, 0);
  *same_source = !top->done && h->heap_len && &h->sources[h->heap[0]] == top;
  return LW_OK;
}

/* Moves h->cur to the next line of the merged stream, skipping lines equal
 * to the one before. No line is copied: h->cur points into its source. */
static LwStatus harvest_next(Harvest *h, LwError *err)
{
  const Line *before = NULL;
  bool same_source = false;
  if (h->cur) {
    LW_TRY(advance_top(h, &before, &same_source, err));
  }
  for (;;) {
    if (h->heap_len == 0) {
      h->done = true;
      h->cur = NULL;
      return LW_OK;
    }
    Source *top = &h->sources[h->heap[0]];
    /* From the same input the sort check already compared the two. */
    bool duplicate = before && (same_source ? top->same_as_before
                                            : compare_lines(before, &top->cur) == 0);
    if (!duplicate) {
      h->cur = &top->cur;
      return LW_OK;
    }
    LW_TRY(advance_top(h, &before, &same_source, err));
  }
}

static LwStatus harvest_open(Harvest *h, const char *const *paths, size_t count,
                             size_t max_line, LwError *err)
{
  h->sources = calloc(count ? count : 1, sizeof(Source));
  h->heap = calloc(count ? count : 1, sizeof(size_t));
  if (!h->sources || !h->heap) {
    return lw_error_set(err, LW_ERR_NOMEM, "out of memory");
  }
  for (size_t i = 0; i < count; ++i) {
    h->count = i + 1; /* closed by harvest_close even if opening fails */
    LW_TRY(source_open(&h->sources[i], paths[i], max_line, &h->rw, err));
    if (!h->sources[i].done) {
      h->heap[h->heap_len++] = i;
    }
  }
  for (size_t i = h->heap_len / 2 + 1; i-- > 0;) {
    heap_down(h, i);
  }
  return harvest_next(h, err);
}

static void harvest_close(Harvest *h)
{
  for (size_t i = 0; i < h->count; ++i) {
    source_close(&h->sources[i]);
  }
  free(h->sources);
  free(h->heap);
}

/* ---- outputs: gzip on threads of their own (files/files.h), so
 * compression does not sit on the merge's thread ---- */

typedef struct {
  FILE *file;
  LwGzWriter *gz;
} Out;

typedef struct {
  Out graph;
  Out added;
  Out removed;
} Outputs;

/* line: built by line_build, its "\n" after it. */
static LwStatus put_line(Out *out, const Line *line, LwError *err)
{
  return out->gz ? lw_gz_writer_write(out->gz, line->data, line->len + 1, err) : LW_OK;
}

/* Opens path (NULL: no output) with threads compression threads. */
static LwStatus open_out(Out *out, const char *path, unsigned threads, LwError *err)
{
  out->file = NULL;
  out->gz = NULL;
  if (!path) {
    return LW_OK;
  }
  out->file = fopen(path, "wb");
  if (!out->file) {
    return lw_error_set(err, LW_ERR_IO, "cannot write %s: %s", path, strerror(errno));
  }
  /* The graph file and the changesets need no checksum: no MD5 (it would
   * cost the outputs' threads as much CPU as their compression). */
  LwGzOptions o = {.gzip = true, .level = 1, .threads = threads, .no_md5 = true};
  LwStatus st = lw_gz_writer_open(out->file, &o, &out->gz, err);
  if (st != LW_OK) {
    fclose(out->file);
    out->file = NULL;
  }
  return st;
}

/* Finishes the output; on failure (ok false) only releases it. */
static LwStatus close_out(Out *out, const char *path, bool ok, LwError *err)
{
  LwStatus st = LW_OK;
  if (out->gz) {
    if (ok) {
      st = lw_gz_writer_close(out->gz, NULL, err);
    } else {
      lw_gz_writer_free(out->gz);
    }
  }
  if (out->file && fclose(out->file) != 0 && st == LW_OK && ok) {
    st = lw_error_set(err, LW_ERR_IO, "cannot finish %s: %s", path, strerror(errno));
  }
  out->file = NULL;
  out->gz = NULL;
  return st;
}

/* ---- many clean files: merged in rounds ---- */

/* Clean files read at once. Each holds a descriptor, a reading thread and
 * about 1 MB of buffers: a harvest of 100,000 files (an archive of one file
 * per resource) read at once would run out of descriptors or memory. */
#define MAX_FAN_IN 64

typedef struct {
  char **paths;
  size_t count;
} Rounds;

static void rounds_remove(Rounds *r)
{
  for (size_t i = 0; i < r->count; ++i) {
    unlink(r->paths[i]);
    free(r->paths[i]);
  }
  free(r->paths);
  *r = (Rounds){0};
}

/* Merges count clean files into one new sorted file without repeats, its
 * lines already in the provider's graph; its path goes into path. */
static LwStatus merge_group(const char *const *paths, size_t count, const Rewrite *rw,
                            size_t max_line, const char *data_dir, char *path, size_t size,
                            LwError *err)
{
  FILE *f;
  LW_TRY(lw_store_tmpfile(data_dir, path, size, &f, err));
  Out out = {f, NULL};
  LwGzOptions go = {.gzip = true, .level = 1, .threads = 1, .no_md5 = true};
  LwStatus st = lw_gz_writer_open(f, &go, &out.gz, err);
  Harvest h = {.rw = *rw};
  if (st == LW_OK) {
    st = harvest_open(&h, paths, count, max_line, err);
  }
  while (st == LW_OK && !h.done) {
    st = put_line(&out, h.cur, err);
    if (st == LW_OK) {
      st = harvest_next(&h, err);
    }
  }
  harvest_close(&h);
  LwStatus cst = close_out(&out, path, st == LW_OK, err);
  st = st != LW_OK ? st : cst;
  if (st != LW_OK) {
    unlink(path);
  }
  return st;
}

/* The longest line of a round's file: a harvest line, its graph label
 * replaced by the provider's. */
static size_t round_max_line(size_t max_line, const Rewrite *rw)
{
  return max_line + rw->graph_len + 4;
}

/* With more than MAX_FAN_IN clean files, merges them MAX_FAN_IN at a time
 * into files in DATA/tmp, round after round (as sort(1) merges its runs),
 * until MAX_FAN_IN or fewer are left: those are in *rounds (none when the
 * harvest's own files are few enough). Each round reads and writes every
 * line once more; only harvests of many files pay for it. */
static LwStatus merge_rounds(const LwGraphMergeOptions *o, const Rewrite *rw,
                             size_t max_line, Rounds *rounds, LwError *err)
{
  const char *data_dir = o->data_dir        ? o->data_dir
                         : getenv("TMPDIR") ? getenv("TMPDIR")
                                            : "/tmp";
  const char *const *paths = o->new_paths;
  size_t count = o->new_count;
  *rounds = (Rounds){0};
  while (count > MAX_FAN_IN) {
    Rounds next = {calloc((count + MAX_FAN_IN - 1) / MAX_FAN_IN, sizeof(char *)), 0};
    LwStatus st = next.paths ? LW_OK : lw_error_set(err, LW_ERR_NOMEM, "out of memory");
    size_t limit = rounds->count ? round_max_line(max_line, rw) : max_line;
    for (size_t i = 0; st == LW_OK && i < count; i += MAX_FAN_IN) {
      char path[4096];
      size_t n = count - i < MAX_FAN_IN ? count - i : MAX_FAN_IN;
      st = merge_group(paths + i, n, rw, limit, data_dir, path, sizeof(path), err);
      if (st == LW_OK && !(next.paths[next.count] = strdup(path))) {
        unlink(path);
        st = lw_error_set(err, LW_ERR_NOMEM, "out of memory");
      }
      next.count += st == LW_OK;
    }
    rounds_remove(rounds); /* the round before, read now */
    *rounds = next;
    if (st != LW_OK) {
      rounds_remove(rounds);
      return st;
    }
    paths = (const char *const *)rounds->paths;
    count = rounds->count;
  }
  return LW_OK;
}

/* ---- the merge-join ---- */

typedef struct {
  Source old;
  bool has_old;
  Harvest fresh;
  Outputs out;
  LwGraphMergeReport *report;
  Line last_subject;               /* to count distinct subjects written */
  Line group_subject;              /* the subject of the group being merged
                                      (reused: no allocation per subject) */
  unsigned long long new_subjects; /* harvest subjects the old graph lacked */
  unsigned long long merged;       /* harvest lines merged, for progress */
  const LwGraphMergeOptions *options;
  LwGraphWrites *writes; /* the graph database's puts and dels, applied
                            on the thread of its write transaction */
} Merge;

static bool old_live(const Merge *m)
{
  return m->has_old && !m->old.done;
}

static LwStatus write_graph_line(Merge *m, const Line *line, LwError *err)
{
  LW_TRY(put_line(&m->out.graph, line, err));
  ++m->report->triples;
  size_t sl = subject_len(line);
  if (!m->last_subject.len ||
      compare(m->last_subject.data, m->last_subject.len, line->data, sl)) {
    ++m->report->subjects;
    Line subject = {line->data, sl, sl};
    LW_TRY(line_copy(&m->last_subject, &subject, err));
  }
  return LW_OK;
}

/* The "S P O" part of a line "S P O <graph> .". */
static size_t triple_len(const Line *line, const Rewrite *rw)
{
  return line->len - rw->graph_len - 3;
}

/* Copies the old group of the current old subject unchanged. */
static LwStatus keep_old_group(Merge *m, const Rewrite *rw, LwError *err)
{
  Line *subject = &m->group_subject;
  LW_TRY(subject_copy(subject, &m->old.cur, err));
  LwStatus st = LW_OK;
  while (st == LW_OK && old_live(m) && is_about(&m->old.cur, subject)) {
    st = write_graph_line(m, &m->old.cur, err);
    if (st == LW_OK) {
      st = source_next(&m->old, rw, err);
    }
  }
  return st;
}

/* Counts a harvest line merged; tells the caller now and then. */
static void count_merged(Merge *m)
{
  if ((++m->merged & 0xFFFF) == 0 && m->options->progress) {
    m->options->progress(m->options->progress_handle, m->merged);
  }
}

/* Replaces the group of the harvest's current subject: the harvest's lines
 * are written; old lines of that subject are dropped; the difference is the
 * changeset. */
static LwStatus replace_group(Merge *m, const Rewrite *rw, LwError *err)
{
  Line *subject = &m->group_subject;
  LW_TRY(subject_copy(subject, m->fresh.cur, err));
  ++m->report->harvest_subjects;
  LwStatus st = LW_OK;
  bool first = true;
  const bool in_old_graph = old_live(m) && is_about(&m->old.cur, subject);
  m->new_subjects += !in_old_graph;
  const unsigned long long changes = m->report->added + m->report->removed;
  for (;;) {
    bool in_new = !m->fresh.done && is_about(m->fresh.cur, subject);
    bool in_old = old_live(m) && is_about(&m->old.cur, subject);
    if (!in_new && !in_old) {
      break;
    }
    int c = !in_new ? 1 : !in_old ? -1 : compare_lines(m->fresh.cur, &m->old.cur);
    if (c <= 0) {
      /* A graph database keeps its own counts; only a graph file is written. */
      st = m->options->db ? LW_OK : write_graph_line(m, m->fresh.cur, err);
      if (st == LW_OK && m->options->on_harvest_line) {
        st = m->options->on_harvest_line(m->options->handle, m->fresh.cur->data,
                                         triple_len(m->fresh.cur, rw), first, in_old_graph,
                                         err);
        first = false;
      }
      if (st == LW_OK && c < 0) {
        ++m->report->added;
        st = put_line(&m->out.added, m->fresh.cur, err);
        if (st == LW_OK && m->writes) {
          st = lw_graph_writes_put(m->writes, m->fresh.cur->data,
                                   triple_len(m->fresh.cur, rw), err);
        }
      }
      if (st == LW_OK) {
        count_merged(m);
        st = harvest_next(&m->fresh, err);
      }
    }
    if (st == LW_OK && c >= 0) {
      if (c > 0) {
        ++m->report->removed;
        st = put_line(&m->out.removed, &m->old.cur, err);
        if (st == LW_OK && m->writes) {
          st = lw_graph_writes_del(m->writes, m->old.cur.data, triple_len(&m->old.cur, rw),
                                   err);
        }
      }
      if (st == LW_OK) {
        st = source_next(&m->old, rw, err);
      }
    }
    if (st != LW_OK) {
      break;
    }
  }
  if (st == LW_OK && m->options->on_subject_end) {
    st = m->options->on_subject_end(m->options->handle,
                                    m->report->added + m->report->removed != changes, err);
  }
  return st;
}

static LwStatus merge_all(Merge *m, const Rewrite *rw, LwError *err)
{
  while (!m->fresh.done || old_live(m)) {
    int c = m->fresh.done  ? 1
            : !old_live(m) ? -1
                           : compare_subjects(m->fresh.cur, &m->old.cur);
    if (c <= 0) {
      LW_TRY(replace_group(m, rw, err));
    } else {
      LW_TRY(keep_old_group(m, rw, err));
    }
  }
  return LW_OK;
}

/* The graph database's way: only the harvest's subjects are read, each
 * through a cursor on its key range of the committed graph; other subjects
 * are not touched. Runs on a thread of its own (merge_thread). */
static LwStatus merge_subjects(Merge *m, const Rewrite *rw, LwError *err)
{
  LwGraphCursor *cursor = NULL;
  LwStatus st = lw_graph_cursor_open_committed(m->options->db, &cursor, err);
  memset(&m->old, 0, sizeof(m->old));
  m->old.cursor = cursor;
  while (st == LW_OK && !m->fresh.done) {
    m->has_old = true;
    m->old.done = false;
    st = lw_graph_cursor_seek(cursor, m->fresh.cur->data, subject_len(m->fresh.cur), err);
    if (st == LW_OK) {
      st = source_next(&m->old, rw, err);
    }
    if (st == LW_OK) {
      st = replace_group(m, rw, err);
    }
  }
  m->has_old = false;
  source_close(&m->old); /* and the cursor's read snapshot */
  return st;
}

typedef struct {
  Merge *merge;
  const Rewrite *rw;
  LwStatus status;
  LwError err;
} MergeThread;

static void *merge_thread(void *arg)
{
  MergeThread *t = arg;
  t->status = merge_subjects(t->merge, t->rw, &t->err);
  lw_graph_writes_finish(t->merge->writes);
  return NULL;
}

/* The merge on a thread of its own, its writes applied on this one (the
 * write transaction's), then the counts updated in the transaction. */
static LwStatus merge_db(Merge *m, const Rewrite *rw, LwError *err)
{
  LwGraphDb *db = m->options->db;
  LwGraphDbInfo info;
  LW_TRY(lw_graph_db_info(db, &info, err));
  m->writes = lw_graph_writes_new();
  if (!m->writes) {
    return lw_error_set(err, LW_ERR_NOMEM, "out of memory");
  }
  MergeThread t = {.merge = m, .rw = rw, .status = LW_OK};
  pthread_t thread;
  if (pthread_create(&thread, NULL, merge_thread, &t) != 0) {
    lw_graph_writes_free(m->writes);
    m->writes = NULL;
    return lw_error_set(err, LW_ERR_NOMEM, "cannot start the merge's thread");
  }
  LwStatus st = lw_graph_writes_apply(m->writes, db, err);
  pthread_join(thread, NULL);
  lw_graph_writes_free(m->writes);
  m->writes = NULL;
  LW_TRY(st); /* the database's failure, which also stopped the merge */
  if (t.status != LW_OK) {
    if (err) {
      *err = t.err;
    }
    return t.status;
  }
  LwGraphMergeReport *r = m->report;
  r->triples = info.triples + r->added - r->removed;
  r->subjects = info.subjects + m->new_subjects;
  info.triples = r->triples;
  info.subjects = r->subjects;
  snprintf(info.graph_iri, sizeof(info.graph_iri), "%s", m->options->graph_iri);
  return lw_graph_db_set_info(db, &info, err);
}

LwStatus lw_graph_merge(const LwGraphMergeOptions *o, LwGraphMergeReport *report,
                        LwError *err)
{
  memset(report, 0, sizeof(*report));
  size_t max_line = o->max_line ? o->max_line : DEFAULT_MAX_LINE;
  size_t glen = strlen(o->graph_iri) + 2;
  char *graph_term = malloc(glen + 1);
  if (!graph_term) {
    return lw_error_set(err, LW_ERR_NOMEM, "out of memory");
  }
  snprintf(graph_term, glen + 1, "<%s>", o->graph_iri);

  Merge m = {0};
  m.report = report;
  m.options = o;
  m.fresh.rw = (Rewrite){graph_term, glen, &report->foreign_graph};
  Rewrite old_rw = {graph_term, glen, NULL};
  LwStatus st = LW_OK;
  if (!o->db && o->old_path && access(o->old_path, F_OK) == 0) {
    m.has_old = true;
    st = source_open(&m.old, o->old_path, max_line, &old_rw, err);
  }
  Rounds rounds = {0};
  if (st == LW_OK) {
    st = merge_rounds(o, &m.fresh.rw, max_line, &rounds, err);
  }
  if (st == LW_OK) {
    st = rounds.count
           ? harvest_open(&m.fresh, (const char *const *)rounds.paths, rounds.count,
                          round_max_line(max_line, &m.fresh.rw), err)
           : harvest_open(&m.fresh, o->new_paths, o->new_count, max_line, err);
  }
  if (st == LW_OK) {
    st = open_out(&m.out.graph, o->out_path, 2, err);
  }
  if (st == LW_OK) {
    st = open_out(&m.out.added, o->added_path, 1, err);
  }
  if (st == LW_OK) {
    st = open_out(&m.out.removed, o->removed_path, 1, err);
  }
  if (st == LW_OK) {
    st = o->db ? merge_db(&m, &old_rw, err) : merge_all(&m, &old_rw, err);
  }
  LwStatus cst = close_out(&m.out.graph, o->out_path, st == LW_OK, err);
  LwStatus ast = close_out(&m.out.added, o->added_path, st == LW_OK, err);
  LwStatus rst = close_out(&m.out.removed, o->removed_path, st == LW_OK, err);
  if (st == LW_OK) {
    st = cst != LW_OK ? cst : ast != LW_OK ? ast : rst;
  }
  if (m.has_old) {
    source_close(&m.old);
  }
  harvest_close(&m.fresh);
  rounds_remove(&rounds);
  free(m.last_subject.data);
  free(m.group_subject.data);
  free(graph_term);
  return st;
}
