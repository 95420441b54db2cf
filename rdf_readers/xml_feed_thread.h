/*
 * The RDF/XML reader's read-ahead: a thread of its own reads the input in
 * blocks, runs the XML guard (rdf_readers/rdf_readers.h) and the xml:lang /
 * xml:base tokenizer (rdf_readers/xml_scope.h) over each, a few blocks
 * ahead of raptor, and hands the reader every block as the pieces to give
 * raptor in order: the bytes between the start tags that matter, each such
 * tag alone (with the in-scope language raptor forgets), and the xml:base
 * values raptor must read instead of the document's. So the thread that
 * runs raptor, the reader's, spends its time in raptor only: the two
 * byte-by-byte passes were a seventh of it, enough to make lodwash slower
 * than rapper on the same parser.
 *
 * The pieces are exactly what the reader gave raptor when it ran the two
 * passes itself, block by block; a guard refusal or a read error comes as
 * the block where it happened, after every block before it.
 * Memory: a few blocks (each the block read and the strings of its tags).
 */
#ifndef LW_XML_FEED_THREAD_H
#define LW_XML_FEED_THREAD_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "rdf_readers/rdf_readers.h"
#include "rdf_readers/xml_scope.h"

/* The blocks read after the first (which may be longer: the prolog). */
#define LW_XML_FEED_BLOCK 65536

/* One piece for raptor_parser_parse_chunk: len bytes at offset in the
 * block's bytes. A piece of a start tag that matters carries the tag's
 * in-scope xml:lang for property attributes (lang >= 0: the offset of a
 * NUL-terminated string in the bytes). fed_to: where in the input block the
 * reader is after the piece (a replacement xml:base value stands for the
 * document's). A piece that starts a tag (starts_tag) is where the reader
 * may stop giving tags alone: it then gives the rest of the block, from
 * where it is to end, in one piece. */
typedef struct {
  size_t offset;
  size_t len;
  long lang;
  size_t fed_to;
  bool starts_tag;
  bool eof; /* the last piece of the input */
} LwXmlPiece;

typedef struct {
  const char *bytes; /* the input block, then the strings of its tags */
  size_t end;        /* the input block's bytes given to raptor with it */
  const LwXmlPiece *pieces;
  size_t n_pieces;
  bool last;        /* the input ended, or status says why nothing follows */
  LwStatus status;  /* LW_OK, or the guard's refusal or the read error */
  const LwError *err;
} LwXmlFeedBlock;

typedef struct LwXmlFeedThread LwXmlFeedThread;

/* Starts the thread on the document in, from its first byte: the thread
 * reads it in blocks (the first may be longer: up to the end of the
 * prolog, LW_XML_MAX_PROLOG_BYTES), checks the prolog with the guard, then
 * watches and plans every block. Until lw_xml_feed_thread_stop, in, guard
 * and scope (may be NULL: no tokenizer) are the thread's alone; the marks
 * the scope writes are shared with the reader (xml_base_marks.h). */
LwStatus lw_xml_feed_thread_start(FILE *in, LwXmlGuard *guard, LwXmlScope *scope,
                                  LwXmlFeedThread **thread, LwError *err);

/* Waits for the next block; valid until lw_xml_feed_thread_release. Not
 * called again after a block that is last. */
void lw_xml_feed_thread_next(LwXmlFeedThread *thread, LwXmlFeedBlock *block);

/* Gives the block back to the thread. */
void lw_xml_feed_thread_release(LwXmlFeedThread *thread);

/* Stops the thread (what it has not handed out is dropped) and frees it.
 * NULL is safe. */
void lw_xml_feed_thread_stop(LwXmlFeedThread *thread);

#endif
