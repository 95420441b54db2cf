#include "rdf_readers/xml_feed_thread.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "rdf_readers/slot_ring.h"

/* Blocks planned ahead of the reader: enough that raptor never waits while
 * the thread keeps up. */
#define SLOTS 4

/* The thread plans a block into a slot, the reader gives it to raptor
 * (rdf_readers/slot_ring.h). */
typedef struct {
  LwBuf bytes;  /* the block, then its tags' strings */
  LwBuf pieces; /* LwXmlPiece[] */
  size_t end;
  LwStatus status;
  LwError err;
  bool last;
} Slot;

struct LwXmlFeedThread {
  FILE *in;
  char *block; /* the input read: LW_XML_MAX_PROLOG_BYTES + LW_XML_FEED_BLOCK bytes */
  LwXmlGuard *guard;
  LwXmlScope *scope;
  bool started; /* raptor got its first bytes */
  Slot slots[SLOTS];
  LwSlotRing ring;
  pthread_t thread;
};

/* Reads up to want bytes; sets *eof at the end of input. */
static LwStatus read_block(FILE *in, char *buf, size_t want, size_t *got, bool *eof)
{
  *got = 0;
  while (*got < want) {
    size_t n = fread(buf + *got, 1, want - *got, in);
    if (n == 0) {
      if (ferror(in)) {
        return LW_ERR_IO;
      }
      *eof = true;
      break;
    }
    *got += n;
  }
  return LW_OK;
}

/* Reads the first block and on until the prolog is complete and checked;
 * leaves its bytes (and maybe more) in t->block. */
static LwStatus read_prolog(LwXmlFeedThread *t, size_t *len, bool *eof, LwError *err)
{
  *len = 0;
  *eof = false;
  for (;;) {
    size_t got;
    if (read_block(t->in, t->block + *len, LW_XML_FEED_BLOCK, &got, eof) != LW_OK) {
      return lw_error_set(err, LW_ERR_IO, "read error");
    }
    *len += got;
    LwStatus st = lw_xml_guard_prolog(t->guard, t->block, *len, *eof, err);
    if (st != LW_NOTHING) {
      return st;
    }
  }
}

/* Appends a piece; out of memory: the block fails. */
static bool piece(Slot *s, size_t offset, size_t len, long lang, size_t fed_to,
                  bool starts_tag, bool eof)
{
  LwXmlPiece x = {offset, len, lang, fed_to, starts_tag, eof};
  return lw_buf_append(&s->pieces, &x, sizeof(x)) == LW_OK;
}

/* Copies str (len bytes) after the block: its offset, or -1 when out of
 * memory. */
static long keep_string(Slot *s, const char *str, size_t len)
{
  long at = (long)s->bytes.len;
  if (lw_buf_append(&s->bytes, str, len) != LW_OK || lw_buf_append_char(&s->bytes, '\0') != LW_OK) {
    return -1;
  }
  return at;
}

/* One start tag that matters: the bytes before it, then the tag alone with
 * its language (and raptor's xml:base value in place of the document's).
 * *fed: where in the block the pieces so far end. */
static bool plan_tag(Slot *s, size_t *fed, size_t tag, size_t pos, const LwXmlScopeTag *t)
{
  bool starts = true;
  if (tag > *fed) {
    if (!piece(s, *fed, tag - *fed, -1, tag, true, false)) {
      return false;
    }
    *fed = tag;
    starts = false;
  }
  long lang = t->lang ? keep_string(s, t->lang, strlen(t->lang)) : -1;
  if (t->lang && lang < 0) {
    return false;
  }
  if (t->base && t->base_start >= *fed) {
    if (t->base_start > *fed) {
      if (!piece(s, *fed, t->base_start - *fed, lang, t->base_start, starts, false)) {
        return false;
      }
      starts = false;
    }
    long base = keep_string(s, t->base, t->base_len);
    if (base < 0 || !piece(s, (size_t)base, t->base_len, lang, t->base_end, starts, false)) {
      return false;
    }
    starts = false;
    *fed = t->base_end;
  }
  if (!piece(s, *fed, pos - *fed, lang, pos, starts, false)) {
    return false;
  }
  *fed = pos;
  return true;
}

/* Plans the len bytes of t->block into s (as the reader gave them to
 * raptor before: see feed in rdf_reader_raptor.c). Returns how many bytes at
 * the end (an unfinished start tag) are kept for the next block, and false
 * in *ok when out of memory. */
static size_t plan_block(LwXmlFeedThread *t, Slot *s, size_t len, bool eof, bool *ok)
{
  const char *data = t->block;
  *ok = lw_buf_append(&s->bytes, data, len) == LW_OK;
  size_t fed = 0;
  if (*ok && !t->started) {
    /* raptor keeps its first bytes for libxml2 to guess the encoding and
     * parses them only with the next: a few that end no tag */
    fed = len < 4 ? len : 4;
    *ok = piece(s, 0, fed, -1, fed, false, eof && fed == len);
    t->started = true;
  }
  size_t pos = 0, tag;
  LwXmlScopeTag tg;
  while (*ok && t->scope && lw_xml_scope_next(t->scope, data, len, &pos, &tag, &tg)) {
    *ok = plan_tag(s, &fed, tag, pos, &tg);
  }
  size_t keep = 0;
  if (t->scope && !eof && lw_xml_scope_open_tag(t->scope, &tag) && tag >= fed &&
      len - tag <= LW_XML_MAX_PROLOG_BYTES) {
    keep = len - tag;
    lw_xml_scope_restart_tag(t->scope);
  }
  s->end = len - keep;
  if (*ok && (fed < s->end || eof)) {
    *ok = piece(s, fed, s->end - fed, -1, s->end, false, eof);
  }
  return keep;
}

/* Waits for the slot to fill next, emptied; NULL when stopping. */
static Slot *free_slot(LwXmlFeedThread *t)
{
  int i = lw_slot_ring_fill_wait(&t->ring);
  if (i < 0) {
    return NULL;
  }
  Slot *s = &t->slots[i];
  lw_buf_reset(&s->bytes);
  lw_buf_reset(&s->pieces);
  s->end = 0;
  s->status = LW_OK;
  s->last = false;
  return s;
}

/* The block in t->block (len bytes, the first `guarded` of them seen by the
 * guard already) into s. Returns the bytes kept for the next block. */
static size_t fill(LwXmlFeedThread *t, Slot *s, size_t len, size_t guarded, bool eof)
{
  s->status = lw_xml_guard_feed(t->guard, t->block, len, guarded, &s->err);
  if (s->status != LW_OK) {
    s->last = true;
    return 0;
  }
  bool ok;
  size_t keep = plan_block(t, s, len, eof, &ok);
  if (!ok) {
    s->status = lw_error_set(&s->err, LW_ERR_NOMEM, "out of memory reading RDF/XML");
  }
  s->last = eof || !ok;
  return keep;
}

static void *thread_main(void *arg)
{
  LwXmlFeedThread *t = arg;
  size_t len, guarded = 0;
  bool eof;
  LwError err;
  LwStatus st = read_prolog(t, &len, &eof, &err);
  for (Slot *s = free_slot(t); s; s = free_slot(t)) {
    size_t keep = 0;
    if (st != LW_OK) {
      s->status = st;
      s->err = err;
      s->last = true;
    } else {
      keep = fill(t, s, len, guarded, eof);
    }
    bool last = s->last;
    lw_slot_ring_publish(&t->ring);
    if (last) {
      break;
    }
    memmove(t->block, t->block + len - keep, keep);
    size_t got;
    if (read_block(t->in, t->block + keep, LW_XML_FEED_BLOCK, &got, &eof) != LW_OK) {
      st = lw_error_set(&err, LW_ERR_IO, "read error");
    }
    guarded = keep;
    len = keep + got;
  }
  return NULL;
}

static void destroy(LwXmlFeedThread *t)
{
  for (size_t i = 0; i < SLOTS; ++i) {
    lw_buf_free(&t->slots[i].bytes);
    lw_buf_free(&t->slots[i].pieces);
  }
  lw_slot_ring_destroy(&t->ring);
  free(t->block);
  free(t);
}

LwStatus lw_xml_feed_thread_start(FILE *in, LwXmlGuard *guard, LwXmlScope *scope,
                                  LwXmlFeedThread **thread, LwError *err)
{
  *thread = NULL;
  LwXmlFeedThread *t = calloc(1, sizeof(*t));
  if (!t) {
    return lw_error_set(err, LW_ERR_NOMEM, "out of memory for the RDF/XML read-ahead");
  }
  lw_slot_ring_init(&t->ring, SLOTS);
  t->block = malloc(LW_XML_MAX_PROLOG_BYTES + LW_XML_FEED_BLOCK);
  if (!t->block) {
    destroy(t);
    return lw_error_set(err, LW_ERR_NOMEM, "out of memory for the RDF/XML read-ahead");
  }
  t->in = in;
  t->guard = guard;
  t->scope = scope;
  if (pthread_create(&t->thread, NULL, thread_main, t) != 0) {
    destroy(t);
    return lw_error_set(err, LW_ERR_INTERNAL, "cannot start the RDF/XML read-ahead thread");
  }
  *thread = t;
  return LW_OK;
}

void lw_xml_feed_thread_next(LwXmlFeedThread *t, LwXmlFeedBlock *b)
{
  const Slot *s = &t->slots[lw_slot_ring_take_wait(&t->ring)];
  *b = (LwXmlFeedBlock){.bytes = s->bytes.data,
                        .end = s->end,
                        .pieces = (const LwXmlPiece *)s->pieces.data,
                        .n_pieces = s->pieces.len / sizeof(LwXmlPiece),
                        .last = s->last,
                        .status = s->status,
                        .err = &s->err};
}

void lw_xml_feed_thread_release(LwXmlFeedThread *t)
{
  lw_slot_ring_release(&t->ring);
}

void lw_xml_feed_thread_stop(LwXmlFeedThread *t)
{
  if (!t) {
    return;
  }
  lw_slot_ring_stop(&t->ring);
  pthread_join(t->thread, NULL);
  destroy(t);
}
