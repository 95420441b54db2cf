/*
 * Blank node skolemization (RDF 1.1 §3.5): a blank node becomes the
 * well-known IRI
 *
 *     BASE/.well-known/genid/SEEDHASH/LABEL
 *
 * where SEEDHASH names the file (the seed's hash) and LABEL is the blank
 * node's label in that file. Stable: cleaning the same file again gives the
 * same IRIs. Collision-free: SEEDHASH and LABEL are percent-encoded so that
 * only RFC 3986 unreserved characters (A-Z a-z 0-9 - . _ ~) stay as they
 * are and every other byte becomes %XX (upper-case hex); two different labels
 * (or seeds) therefore never give the same IRI, and the IRI is already in
 * RFC 3986 normal form. BASE is used as it is, without a trailing '/'.
 */
#ifndef LW_SKOLEM_H
#define LW_SKOLEM_H

#include <stddef.h>

#include "common/buf.h"
#include "common/rdf_term.h"
#include "common/status.h"

/* Appends the skolem IRI (without < >) for label (label_len bytes) to out. */
LwStatus lw_skolem_append_iri(LwBuf *out, const char *base,
                              const char *seed_hash, const char *label,
                              size_t label_len);

/* Skolemizes quads one after the other, reusing its buffers. */
typedef struct {
  const char *base;      /* e.g. "https://lodwash.example.org"; borrowed */
  const char *seed_hash; /* borrowed */
  LwBuf iris[3];         /* subject, object, graph */
} LwSkolem;

/* Sets up a skolemizer; base and seed_hash must outlive it. */
void lw_skolem_init(LwSkolem *sk, const char *base, const char *seed_hash);

/* Frees its buffers. NULL is safe. */
void lw_skolem_free(LwSkolem *sk);

/* Copies in to out with every blank node (subject, object, graph) replaced
 * by its skolem IRI. out's strings point into sk (valid until the next
 * call) or into in. */
LwStatus lw_skolem_quad(LwSkolem *sk, const LwQuad *in, LwQuad *out);

#endif
