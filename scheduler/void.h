/*
 * What the scheduler needs from a provider's VoID file: when its data last
 * changed and where the dumps are.
 *
 * Every dataset in the document counts: subjects typed void:Dataset (or
 * void:Linkset, its subclass), and - following the VoID vocabulary's
 * rdfs:domain - subjects of void:dataDump, void:feature or void:subset and
 * objects of void:subset. So `:#d1lodfull a void:Dataset ;` from the GeoLink
 * proposal, where `#` starts a comment and the subject is `<#>` (the VoID's
 * own URL with an empty fragment) without the type, is still a dataset.
 *
 * A VoID describing several datasets is one harvest of all their dumps:
 *   - modified: the latest dcterms:modified of any dataset (xsd:date,
 *     xsd:dateTime, a plain literal, or any other datatype, including the
 *     `rdf:datatype="xsd:date"` CURIE mistake, as long as the lexical form is
 *     a date); failing that, the dcterms:modified of the document itself (a
 *     void:DatasetDescription, or the subject named by the VoID's URL);
 *     failing that, none: the caller falls back to HTTP Last-Modified, then a
 *     content hash (scheduler.c);
 *   - dumps: every void:dataDump of every dataset, duplicates removed, in
 *     document order. Relative IRIs are resolved against the VoID's URL (by
 *     the reader); a literal dump ("test.ttl", as in glharvest's tests) is
 *     resolved the same way, with a warning. Only http(s) dumps are kept
 *     (others are warned about); none at all is an error;
 *   - the dump kind from void:feature: harvester FullDump / PartialDump in
 *     either namespace of the proposal
 *       http://schema.geolink.org/dev/voc/harvester#FullDump, #PartialDump
 *       http://lod.dataone.org/glharvest#FullDump, #PartialDump
 *     and every feature IRI recorded (format features such as
 *     http://www.w3.org/ns/formats/Turtle are hints for the guess stage);
 *   - optional checksums of a dump: <dump> spdx:checksum [ spdx:algorithm
 *     spdx:checksumAlgorithm_sha1 ; spdx:checksumValue "..." ] (also on the
 *     dataset when it has a single dump), for the download stage.
 *
 * Syntax: Turtle (N-Triples and mislabelled .nt Turtle included) or RDF/XML,
 * chosen by the URL's extension (.ttl .n3 .nt → Turtle; .rdf .xml .owl →
 * RDF/XML), then the media type, then the content; if that reads nothing the
 * other syntax is tried. A document with syntax errors yields what parsed,
 * with warnings: in Turtle, when an error loses the rest of a statement, the
 * offending line is left out and the document read again (at most 8 times),
 * so the proposal's doubled `void:feature void:feature <...FullDump> ;` line
 * costs that line, not the statement's dumps and modified.
 */
#ifndef LW_VOID_H
#define LW_VOID_H

#include <stdbool.h>
#include <stddef.h>

#include "base/base.h"
#include "rdf/rdf.h"

/* Caps that keep a hostile VoID cheap. */
#define LW_VOID_MAX_BYTES (16u * 1024u * 1024u)
#define LW_VOID_MAX_DUMPS 10000u
#define LW_VOID_MAX_WARNINGS 32u

#define LW_HARVESTER_NS_GEOLINK "http://schema.geolink.org/dev/voc/harvester#"
#define LW_HARVESTER_NS_DATAONE "http://lod.dataone.org/glharvest#"

typedef enum {
  LW_DUMP_UNSTATED = 0, /* no harvester feature: treated as a full dump */
  LW_DUMP_FULL,
  LW_DUMP_PARTIAL
} LwDumpKind;

typedef enum {
  LW_MODIFIED_NONE = 0, /* no usable dcterms:modified */
  LW_MODIFIED_DATASET,  /* from the datasets */
  LW_MODIFIED_DOCUMENT  /* from the VoID document's own description */
} LwModifiedSource;

typedef struct {
  char *url;                /* absolute http(s) URL */
  LwDumpKind kind;          /* of the dataset it came from */
  char *dataset;            /* that dataset's IRI or "_:label" */
  char *checksum_algorithm; /* "md5", "sha1", "sha256", ... or NULL */
  char *checksum_value;     /* lower-case hex as written, or NULL */
} LwVoidDump;

typedef struct {
  LwFormat format; /* the syntax that was read */
  LwModifiedSource modified_source;
  LwDateTime modified; /* valid unless modified_source is NONE */
  LwDumpKind kind;     /* FULL if any dump is full, else PARTIAL if any
                                is partial, else UNSTATED */
  size_t dataset_count;
  LwVoidDump *dumps;
  size_t dump_count;
  char **features; /* every distinct void:feature IRI */
  size_t feature_count;
  char **warnings; /* what was odd but not fatal, for the log and
                                the provider record */
  size_t warning_count;
  unsigned long long statements;    /* read from the document */
  unsigned long long syntax_errors; /* in the first reading */
} LwVoid;

/* Reads a VoID document (data, len bytes) fetched from url (the base for
 * relative IRIs; required), with the response's media type (may be NULL).
 * On LW_OK *out is a new LwVoid the caller frees with lw_void_free.
 * Errors (*out NULL, message in err): LW_ERR_SYNTAX when nothing could be
 * read, LW_ERR_FORMAT when no dataset or no http(s) dump is described,
 * LW_ERR_LIMIT when too large, LW_ERR_NOMEM. */
LwStatus lw_void_parse(const char *data, size_t len, const char *url,
                       const char *media_type, LwVoid **out, LwError *err);

/* The syntax lw_void_parse tries first (see above); never UNKNOWN. */
LwFormat lw_void_guess_format(const char *url, const char *media_type, const char *data,
                              size_t len);

/* "full", "partial" or "unstated". */
const char *lw_dump_kind_name(LwDumpKind kind);

/* Frees v and everything in it; NULL is fine. */
void lw_void_free(LwVoid *v);

#endif
