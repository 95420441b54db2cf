#include "rdf_readers/rdf_readers.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "rdf_readers/slot_ring.h"

/* Blocks scanned ahead of the reader: enough that the reader never waits
 * while the thread keeps up. */
#define SLOTS 4

/* The thread scans a block into a slot, the reader takes it
 * (rdf_readers/slot_ring.h). */
typedef struct {
  LwBuf out;
  LwBuf events; /* LwPrescanEvent entries */
  LwScanner scan;
  LwScanner at_limit;
  bool io_error;
  bool at_end;
  bool last; /* nothing follows */
  unsigned long end_line;
  unsigned long end_column;
} Slot;

struct LwPrescanThread {
  FILE *in;
  LwScanner scan; /* the thread's own */
  const char *trailer;
  Slot slots[SLOTS];
  Slot *filling; /* the slot the scanner's callbacks record into */
  LwSlotRing ring;
  pthread_t thread;
  char block[LW_PRESCAN_BLOCK];
};

static void record(LwPrescanThread *t, const LwPrescanEvent *e)
{
  /* out of memory: the report is lost, the counts stay close */
  lw_buf_append(&t->filling->events, e, sizeof(*e));
}

static void on_error(void *handle, unsigned long line, unsigned long column,
                     const char *message)
{
  LwPrescanEvent e = {.kind = LW_PRESCAN_ERROR, .line = line, .column = column,
                      .message = message};
  record(handle, &e);
}

static void on_name_char(void *handle, unsigned long line, bool starts)
{
  LwPrescanEvent e = {.kind = LW_PRESCAN_NAME_CHAR, .line = line, .starts = starts};
  record(handle, &e);
}

LwScanResult lw_scanner_read_block(LwScanner *s, FILE *in, char *block, size_t size,
                                   const char *trailer, LwBuf *out, LwScanBlockEnd *end)
{
  *end = (LwScanBlockEnd){0};
  size_t got = fread(block, 1, size, in);
  if (got) {
    return lw_scanner_feed(s, block, got, out);
  }
  if (ferror(in)) {
    end->io_error = true;
    return LW_SCAN_OK;
  }
  end->at_end = true;
  end->line = s->line;
  end->column = s->column;
  LwScanResult r = lw_scanner_finish(s, out);
  if (r == LW_SCAN_OK && lw_buf_append_str(out, trailer) != LW_OK) {
    r = LW_SCAN_NOMEM;
  }
  return r;
}

/* What the reader does with one block of input (lw_scanner_read_block),
 * into slot s; when a cap stops the scanner, finish it and add the trailer
 * as the reader would. */
static void scan_block(LwPrescanThread *t, Slot *s)
{
  LwScanBlockEnd end;
  LwScanResult r = lw_scanner_read_block(&t->scan, t->in, t->block, sizeof(t->block),
                                         t->trailer, &s->out, &end);
  s->io_error = end.io_error;
  s->at_end = end.at_end;
  s->end_line = end.line;
  s->end_column = end.column;
  s->last = end.io_error || end.at_end;
  if (r != LW_SCAN_OK) {
    LwPrescanEvent e = {.kind = LW_PRESCAN_LIMIT, .result = r};
    record(t, &e);
    s->at_limit = t->scan;
    s->last = true;
    lw_scanner_finish(&t->scan, &s->out);
    lw_buf_append_str(&s->out, t->trailer);
  }
}

static void *thread_main(void *arg)
{
  LwPrescanThread *t = arg;
  for (bool last = false; !last;) {
    int i = lw_slot_ring_fill_wait(&t->ring);
    if (i < 0) {
      break;
    }
    Slot *s = &t->slots[i];
    lw_buf_reset(&s->out);
    lw_buf_reset(&s->events);
    s->io_error = s->at_end = s->last = false;
    t->filling = s;
    scan_block(t, s);
    s->scan = t->scan;
    last = s->last;
    lw_slot_ring_publish(&t->ring);
  }
  return NULL;
}

static void destroy(LwPrescanThread *t)
{
  for (size_t i = 0; i < SLOTS; ++i) {
    lw_buf_free(&t->slots[i].out);
    lw_buf_free(&t->slots[i].events);
  }
  lw_slot_ring_destroy(&t->ring);
  free(t);
}

LwStatus lw_prescan_thread_start(FILE *in, const LwScanner *scanner, const char *trailer,
                                 LwPrescanThread **thread, LwError *err)
{
  *thread = NULL;
  LwPrescanThread *t = calloc(1, sizeof(*t));
  if (!t) {
    return lw_error_set(err, LW_ERR_NOMEM, "out of memory for the pre-scanner");
  }
  lw_slot_ring_init(&t->ring, SLOTS);
  t->in = in;
  t->trailer = trailer;
  t->scan = *scanner;
  t->scan.on_error = on_error;
  t->scan.error_handle = t;
  if (scanner->on_name_char) {
    t->scan.on_name_char = on_name_char;
    t->scan.name_char_handle = t;
  }
  if (pthread_create(&t->thread, NULL, thread_main, t) != 0) {
    destroy(t);
    return lw_error_set(err, LW_ERR_INTERNAL, "cannot start the pre-scanner's thread");
  }
  *thread = t;
  return LW_OK;
}

void lw_prescan_thread_next(LwPrescanThread *t, LwPrescanBlock *b)
{
  Slot *s = &t->slots[lw_slot_ring_take_wait(&t->ring)];
  bool limit = false;
  const LwPrescanEvent *events = (const LwPrescanEvent *)s->events.data;
  size_t n = s->events.len / sizeof(*events);
  for (size_t i = 0; i < n; ++i) {
    limit = limit || events[i].kind == LW_PRESCAN_LIMIT;
  }
  *b = (LwPrescanBlock){.bytes = s->out.data,
                        .len = s->out.len,
                        .events = events,
                        .n_events = n,
                        .scan = &s->scan,
                        .at_limit = limit ? &s->at_limit : NULL,
                        .io_error = s->io_error,
                        .at_end = s->at_end,
                        .end_line = s->end_line,
                        .end_column = s->end_column};
}

void lw_prescan_thread_release(LwPrescanThread *t)
{
  lw_slot_ring_release(&t->ring);
}

void lw_prescan_thread_stop(LwPrescanThread *t)
{
  if (!t) {
    return;
  }
  lw_slot_ring_stop(&t->ring);
  pthread_join(t->thread, NULL);
  destroy(t);
}
