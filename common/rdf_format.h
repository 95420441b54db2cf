/*
 * The seven serializations lodwash recognises, with the names stored on seed
 * records (`format`) and accepted on the command line.
 */
#ifndef LW_RDF_FORMAT_H
#define LW_RDF_FORMAT_H

typedef enum {
  LW_FORMAT_UNKNOWN = 0,
  LW_FORMAT_JSONLD,
  LW_FORMAT_NQUADS,
  LW_FORMAT_NTRIPLES,
  LW_FORMAT_RDFXML,
  LW_FORMAT_RDFA,
  LW_FORMAT_TRIG,
  LW_FORMAT_TURTLE
} LwFormat;

/* The record name: "JSON-LD", "N-Quads", "N-Triples", "RDF/XML", "RDFa",
 * "TriG", "Turtle", or "unknown". */
const char *lw_format_name(LwFormat format);

/* Parses a record name or a short name (jsonld, nquads, nq, ntriples, nt,
 * rdfxml, xml, rdfa, html, trig, turtle, ttl), case-insensitively. */
LwFormat lw_format_parse(const char *name);

#endif
