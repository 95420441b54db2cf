/*
 * The initial context: the prefixes and terms of
 * https://www.w3.org/2011/rdfa-context/rdfa-1.1 (every host language),
 * https://www.w3.org/2011/rdfa-context/html-rdfa-1.1 (no more for HTML) and
 * https://www.w3.org/2011/rdfa-context/xhtml-rdfa-1.1 (XHTML+RDFa 1.1: the
 * XHTML vocabulary's link types as terms), written in; and the lookup of a
 * prefix through the chain of the document's declarations.
 */
#include <string.h>
#include <strings.h>

#include "rdfa/rdfa_private.h"

typedef struct {
  const char *name;
  const char *iri;
} Mapping;

static const Mapping PREFIXES[] = {
  {"as", "https://www.w3.org/ns/activitystreams#"},
  {"cc", "http://creativecommons.org/ns#"},
  {"csvw", "http://www.w3.org/ns/csvw#"},
  {"ctag", "http://commontag.org/ns#"},
  {"dc", "http://purl.org/dc/terms/"},
  {"dc11", "http://purl.org/dc/elements/1.1/"},
  {"dcat", "http://www.w3.org/ns/dcat#"},
  {"dcterms", "http://purl.org/dc/terms/"},
  {"dqv", "http://www.w3.org/ns/dqv#"},
  {"duv", "https://www.w3.org/ns/duv#"},
  {"foaf", "http://xmlns.com/foaf/0.1/"},
  {"gr", "http://purl.org/goodrelations/v1#"},
  {"grddl", "http://www.w3.org/2003/g/data-view#"},
  {"ical", "http://www.w3.org/2002/12/cal/icaltzd#"},
  {"jsonld", "http://www.w3.org/ns/json-ld#"},
  {"ldp", "http://www.w3.org/ns/ldp#"},
  {"ma", "http://www.w3.org/ns/ma-ont#"},
  {"oa", "http://www.w3.org/ns/oa#"},
  {"odrl", "http://www.w3.org/ns/odrl/2/"},
  {"og", "http://ogp.me/ns#"},
  {"org", "http://www.w3.org/ns/org#"},
  {"owl", "http://www.w3.org/2002/07/owl#"},
  {"prov", "http://www.w3.org/ns/prov#"},
  {"qb", "http://purl.org/linked-data/cube#"},
  {"rdf", "http://www.w3.org/1999/02/22-rdf-syntax-ns#"},
  {"rdfa", "http://www.w3.org/ns/rdfa#"},
  {"rdfs", "http://www.w3.org/2000/01/rdf-schema#"},
  {"rev", "http://purl.org/stuff/rev#"},
  {"rif", "http://www.w3.org/2007/rif#"},
  {"rr", "http://www.w3.org/ns/r2rml#"},
  {"schema", "http://schema.org/"},
  {"sd", "http://www.w3.org/ns/sparql-service-description#"},
  {"sioc", "http://rdfs.org/sioc/ns#"},
  {"skos", "http://www.w3.org/2004/02/skos/core#"},
  {"skosxl", "http://www.w3.org/2008/05/skos-xl#"},
  {"sosa", "http://www.w3.org/ns/sosa/"},
  {"ssn", "http://www.w3.org/ns/ssn/"},
  {"time", "http://www.w3.org/2006/time#"},
  {"v", "http://rdf.data-vocabulary.org/#"},
  {"vcard", "http://www.w3.org/2006/vcard/ns#"},
  {"void", "http://rdfs.org/ns/void#"},
  {"wdr", "http://www.w3.org/2007/05/powder#"},
  {"wdrs", "http://www.w3.org/2007/05/powder-s#"},
  {"xhv", "http://www.w3.org/1999/xhtml/vocab#"},
  {"xml", "http://www.w3.org/XML/1998/namespace"},
  {"xsd", "http://www.w3.org/2001/XMLSchema#"},
};

/* rdfa-1.1's terms, for every host language. */
static const Mapping TERMS[] = {
  {"describedby", "http://www.w3.org/2007/05/powder-s#describedby"},
  {"license", "http://www.w3.org/1999/xhtml/vocab#license"},
  {"role", "http://www.w3.org/1999/xhtml/vocab#role"},
};

/* xhtml-rdfa-1.1's terms: the XHTML vocabulary's names. */
#define XHV(t) {t, XHV_NS t}
static const Mapping XHV_TERMS[] = {
  XHV("alternate"),
  XHV("appendix"),
  XHV("bookmark"),
  XHV("cite"),
  XHV("chapter"),
  XHV("contents"),
  XHV("copyright"),
  XHV("first"),
  XHV("glossary"),
  XHV("help"),
  XHV("icon"),
  XHV("index"),
  XHV("itsRules"),
  XHV("last"),
  XHV("license"),
  XHV("meta"),
  XHV("next"),
  XHV("p3pv1"),
  XHV("prev"),
  XHV("previous"),
  XHV("role"),
  XHV("section"),
  XHV("stylesheet"),
  XHV("subsection"),
  XHV("start"),
  XHV("top"),
  XHV("up"),
};

#define COUNT(a) (sizeof(a) / sizeof((a)[0]))

static bool name_is(const char *name, const char *s, size_t len, bool any_case)
{
  if (strlen(name) != len) {
    return false;
  }
  return any_case ? !strncasecmp(name, s, len) : !strncmp(name, s, len);
}

const char *rdfa_prefix_lookup(const RdfaPrefix *chain, const char *prefix, size_t len)
{
  for (const RdfaPrefix *p = chain; p; p = p->next) {
    if (name_is(p->prefix, prefix, len, true)) {
      return p->iri;
    }
  }
  for (size_t i = 0; i < COUNT(PREFIXES); ++i) {
    if (name_is(PREFIXES[i].name, prefix, len, true)) {
      return PREFIXES[i].iri;
    }
  }
  return NULL;
}

const char *rdfa_term_lookup(LwRdfaHost host, const char *term, size_t len)
{
  for (int any_case = 0; any_case < 2; ++any_case) {
    for (size_t i = 0; i < COUNT(TERMS); ++i) {
      if (name_is(TERMS[i].name, term, len, any_case)) {
        return TERMS[i].iri;
      }
    }
    for (size_t i = 0; host == LW_RDFA_HOST_XHTML1 && i < COUNT(XHV_TERMS); ++i) {
      if (name_is(XHV_TERMS[i].name, term, len, any_case)) {
        return XHV_TERMS[i].iri;
      }
    }
  }
  return NULL;
}
