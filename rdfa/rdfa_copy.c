/*
 * Property copying (RDFa Core 1.1 §10.1.1 "Property Copying", used by
 * HTML+RDFa 1.1): a resource with "rdfa:copy P", where P is typed
 * rdfa:Pattern, gets P's properties (all but that type); the rdfa:copy
 * triples and the patterns that were copied are then dropped. Copies are
 * made in rounds until nothing changes (a pattern may copy another), at most
 * MAX_ROUNDS. A page that types a Pattern has its triples held until here
 * (rdfa_document.c), within LW_RDFA_MAX_HELD_BYTES: copies count too.
 *
 * Each round indexes the held triples by subject (sorted), so that finding
 * a pattern's triples is a binary search, not a scan: a hostile page cannot
 * make the copying quadratic in its size. Duplicates a copy may make are
 * left to the cleaner, which removes them.
 */
#include <stdlib.h>
#include <string.h>

#include "rdfa/rdfa_private.h"

#define MAX_ROUNDS 16
#define COPY RDFA_NS "copy"
#define PATTERN RDFA_NS "Pattern"
#define TYPE RDF_NS "type"

static bool live(const RdfaTriple *t)
{
  return t->predicate != NULL;
}

static bool is_pattern_type(const RdfaTriple *t)
{
  return !strcmp(t->predicate, TYPE) && t->object.type == LW_TERM_IRI &&
         !strcmp(t->object.value, PATTERN);
}

/* One held triple's subject, for the index. The strings stay where they
 * are while the copying runs (a dropped triple keeps them till the end). */
typedef struct {
  bool blank;
  const char *value;
  size_t i; /* its place in run->held */
} Entry;

static int entry_order(const void *x, const void *y)
{
  const Entry *a = x, *b = y;
  if (a->blank != b->blank) {
    return a->blank ? 1 : -1;
  }
  return strcmp(a->value, b->value);
}

/* The live held triples by subject, for one round. */
typedef struct {
  Entry *entries;
  size_t count;
} Index;

static bool index_make(Index *ix, const RdfaRun *run)
{
  ix->entries = malloc((run->held_count ? run->held_count : 1) * sizeof(*ix->entries));
  if (!ix->entries) {
    return false;
  }
  ix->count = 0;
  for (size_t i = 0; i < run->held_count; ++i) {
    const RdfaTriple *t = &run->held[i];
    if (live(t)) {
      ix->entries[ix->count++] = (Entry){t->subject.blank, t->subject.value, i};
    }
  }
  qsort(ix->entries, ix->count, sizeof(*ix->entries), entry_order);
  return true;
}

/* The positions [*from, *end) in ix of the triples whose subject the
 * resource (blank, value) is. */
static void index_find(const Index *ix, bool blank, const char *value, size_t *from,
                       size_t *end)
{
  Entry key = {blank, value, 0};
  size_t lo = 0, hi = ix->count;
  while (lo < hi) {
    size_t mid = lo + (hi - lo) / 2;
    if (entry_order(&ix->entries[mid], &key) < 0) {
      lo = mid + 1;
    } else {
      hi = mid;
    }
  }
  *from = lo;
  *end = lo;
  while (*end < ix->count && !entry_order(&ix->entries[*end], &key)) {
    ++*end;
  }
}

static bool is_pattern(const RdfaRun *run, const Index *ix, const RdfaObject *o)
{
  size_t from, end;
  index_find(ix, o->type == LW_TERM_BLANK, o->value, &from, &end);
  for (size_t i = from; i < end; ++i) {
    const RdfaTriple *t = &run->held[ix->entries[i].i];
    if (live(t) && is_pattern_type(t)) {
      return true;
    }
  }
  return false;
}

/* A triple dropped: its predicate goes, its other strings stay (the index
 * may point at them) until the run is freed. */
static void drop(RdfaTriple *t)
{
  free(t->predicate);
  t->predicate = NULL;
}

/* Copies the properties of a pattern (the triples at [from, end) of ix) to
 * subject. */
static void copy_pattern(RdfaRun *run, const Index *ix, size_t from, size_t end,
                         const RdfaNode *subject)
{
  for (size_t i = from; i < end && run->stop == LW_OK; ++i) {
    /* run->held may move as copies are held: copy out first */
    const RdfaTriple *t = &run->held[ix->entries[i].i];
    if (!live(t) || is_pattern_type(t)) {
      continue;
    }
    char *p = strdup(t->predicate);
    RdfaObject o = rdfa_object_copy(&t->object);
    run->line = t->line;
    rdfa_emit(run, subject, p, &o); /* held, since buffering */
    free(p);
    rdfa_object_free(&o);
  }
}

/* One round; false when nothing was copied. The patterns copied are
 * appended to *patterns. */
static bool copy_round(RdfaRun *run, Entry **patterns, size_t *npatterns)
{
  Index ix;
  if (!index_make(&ix, run)) {
    run->stop = lw_error_set(run->err, LW_ERR_NOMEM, "out of memory copying properties");
    return false;
  }
  bool copied = false;
  size_t count = run->held_count; /* the copies made now wait for the next round */
  for (size_t i = 0; i < count && run->stop == LW_OK; ++i) {
    RdfaTriple *t = &run->held[i];
    if (!live(t) || strcmp(t->predicate, COPY) || t->object.type == LW_TERM_LITERAL ||
        !is_pattern(run, &ix, &t->object)) {
      continue;
    }
    Entry pattern = {t->object.type == LW_TERM_BLANK, t->object.value, 0};
    RdfaNode subject = rdfa_node_copy(&t->subject);
    size_t from, end;
    index_find(&ix, pattern.blank, pattern.value, &from, &end);
    drop(t);
    copy_pattern(run, &ix, from, end, &subject);
    rdfa_node_free(&subject);
    Entry *grown = realloc(*patterns, (*npatterns + 1) * sizeof(**patterns));
    if (grown) {
      *patterns = grown;
      (*patterns)[(*npatterns)++] = pattern;
    }
    copied = true;
  }
  free(ix.entries);
  return copied;
}

LwStatus rdfa_copy_properties(RdfaRun *run)
{
  Entry *patterns = NULL; /* the patterns copied */
  size_t npatterns = 0;
  for (int round = 0; round < MAX_ROUNDS && run->stop == LW_OK; ++round) {
    if (!copy_round(run, &patterns, &npatterns)) {
      break;
    }
  }
  /* the copied patterns go, with all their triples */
  qsort(patterns, npatterns, sizeof(*patterns), entry_order);
  for (size_t i = 0; i < run->held_count && npatterns; ++i) {
    RdfaTriple *t = &run->held[i];
    Entry key = {t->subject.blank, t->subject.value, 0};
    if (live(t) && bsearch(&key, patterns, npatterns, sizeof(*patterns), entry_order)) {
      drop(t);
    }
  }
  free(patterns);
  return run->stop;
}
