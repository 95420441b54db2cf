/*
 * Property copying (RDFa Core 1.1 §10.1.1 "Property Copying", used by
 * HTML+RDFa 1.1): a resource with "rdfa:copy P", where P is typed
 * rdfa:Pattern, gets P's properties (all but that type); the rdfa:copy
 * triples and the patterns that were copied are then dropped. Copies are
 * made in rounds until nothing changes (a pattern may copy another), at most
 * MAX_ROUNDS. A page that types a Pattern has its triples held until here
 * (rdfa_document.c).
 */
#include <stdlib.h>
#include <string.h>

#include "rdfa/rdfa_private.h"

#define MAX_ROUNDS 16
#define COPY RDFA_NS "copy"
#define PATTERN RDFA_NS "Pattern"
#define TYPE RDF_NS "type"

static bool same_str(const char *a, const char *b)
{
  return a == b || (a && b && !strcmp(a, b));
}

static bool object_is_node(const RdfaObject *o, const RdfaNode *n)
{
  return o->type == (n->blank ? LW_TERM_BLANK : LW_TERM_IRI) && same_str(o->value, n->value);
}

static bool objects_equal(const RdfaObject *a, const RdfaObject *b)
{
  return a->type == b->type && same_str(a->value, b->value) &&
         same_str(a->datatype, b->datatype) && same_str(a->lang, b->lang);
}

static bool live(const RdfaTriple *t)
{
  return t->predicate != NULL;
}

/* Whether the resource o names is typed rdfa:Pattern. */
static bool is_pattern(const RdfaRun *run, const RdfaObject *o)
{
  for (size_t i = 0; i < run->held_count; ++i) {
    const RdfaTriple *t = &run->held[i];
    if (live(t) && !strcmp(t->predicate, TYPE) && t->object.type == LW_TERM_IRI &&
        !strcmp(t->object.value, PATTERN) && object_is_node(o, &t->subject)) {
      return true;
    }
  }
  return false;
}

static bool has_triple(const RdfaRun *run, const RdfaNode *s, const char *p,
                       const RdfaObject *o)
{
  for (size_t i = 0; i < run->held_count; ++i) {
    const RdfaTriple *t = &run->held[i];
    if (live(t) && rdfa_node_equal(&t->subject, s) && !strcmp(t->predicate, p) &&
        objects_equal(&t->object, o)) {
      return true;
    }
  }
  return false;
}

static void drop(RdfaTriple *t)
{
  rdfa_node_free(&t->subject);
  free(t->predicate);
  t->predicate = NULL;
  rdfa_object_free(&t->object);
}

/* Copies the pattern's properties to subject; false when nothing was new. */
static bool copy_pattern(RdfaRun *run, const RdfaNode *subject, const RdfaObject *pattern)
{
  bool added = false;
  size_t count = run->held_count; /* what is added now is not copied again */
  for (size_t i = 0; i < count && run->stop == LW_OK; ++i) {
    RdfaTriple *t = &run->held[i];
    if (!live(t) || !object_is_node(pattern, &t->subject) ||
        (!strcmp(t->predicate, TYPE) && t->object.type == LW_TERM_IRI &&
         !strcmp(t->object.value, PATTERN))) {
      continue;
    }
    if (!has_triple(run, subject, t->predicate, &t->object)) {
      char *p = strdup(t->predicate);
      RdfaObject o = rdfa_object_copy(&t->object);
      run->line = t->line;
      rdfa_emit(run, subject, p, &o); /* held, since buffering */
      free(p);
      rdfa_object_free(&o);
      added = true;
    }
  }
  return added;
}

LwStatus rdfa_copy_properties(RdfaRun *run)
{
  RdfaNode *patterns = NULL; /* the patterns copied */
  size_t npatterns = 0;
  bool changed = true;
  for (int round = 0; changed && round < MAX_ROUNDS && run->stop == LW_OK; ++round) {
    changed = false;
    for (size_t i = 0; i < run->held_count && run->stop == LW_OK; ++i) {
      RdfaTriple *t = &run->held[i];
      if (!live(t) || strcmp(t->predicate, COPY) || t->object.type == LW_TERM_LITERAL ||
          !is_pattern(run, &t->object)) {
        continue;
      }
      RdfaNode subject = rdfa_node_copy(&t->subject);
      RdfaNode pattern = {.blank = t->object.type == LW_TERM_BLANK,
                          .value = strdup(t->object.value)};
      drop(&run->held[i]);
      changed |= copy_pattern(run, &subject, &(RdfaObject){
                                                .type = pattern.blank ? LW_TERM_BLANK
                                                                      : LW_TERM_IRI,
                                                .value = pattern.value});
      RdfaNode *grown = realloc(patterns, (npatterns + 1) * sizeof(*patterns));
      if (grown) {
        patterns = grown;
        patterns[npatterns++] = pattern;
      } else {
        rdfa_node_free(&pattern);
      }
      rdfa_node_free(&subject);
      changed = true;
    }
  }
  for (size_t i = 0; i < run->held_count; ++i) {
    for (size_t k = 0; k < npatterns && live(&run->held[i]); ++k) {
      if (rdfa_node_equal(&run->held[i].subject, &patterns[k])) {
        drop(&run->held[i]);
      }
    }
  }
  for (size_t k = 0; k < npatterns; ++k) {
    rdfa_node_free(&patterns[k]);
  }
  free(patterns);
  return run->stop;
}
