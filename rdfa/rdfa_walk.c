/*
 * The processing sequence of RDFa Core 1.1 §7.5, with HTML+RDFa 1.1's
 * additions (§3.1: the head / body rule, <time datetime>, rel / rev terms
 * dropped beside @property), over libxml2's tree in document order.
 *
 * No recursion: each open element is a frame on a stack of at most
 * max_depth frames, allocated once (frames point into their parents'). A
 * frame owns what it made: its subject, its object, its prefix
 * declarations, its incomplete triples and the lists it started, and holds
 * the evaluation context its children get (pointers into itself or its
 * ancestors).
 */
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "rdfa/rdfa_attrs.h"
#include "rdfa/rdfa_private.h"

static const char *SPACE = " \t\r\n\f";

typedef enum { TO_LIST, FORWARD, REVERSE } Direction;

typedef struct {
  Direction direction;
  char *predicate; /* FORWARD, REVERSE */
  RdfaList *list;  /* TO_LIST */
} Incomplete;

/* The evaluation context (§7.1) an element's children get. */
typedef struct {
  const RdfaNode *parent_subject;
  const RdfaNode *parent_object; /* may hold no value */
  const Incomplete *incomplete;
  size_t incomplete_count;
  RdfaListMap *lists;
  const char *lang;             /* NULL: none */
  const RdfaPrefix *prefixes;
  const char *vocab;
  const char *base; /* XML's xml:base changes it */
} Context;

typedef struct {
  xmlNodePtr element;
  Context ctx;
  /* owned */
  RdfaNode new_subject;
  RdfaNode object;
  RdfaPrefix *own_prefixes; /* the first links of ctx.prefixes */
  Incomplete *incomplete;
  size_t incomplete_count;
  RdfaListMap own_lists;
  bool owns_lists;
  char *lang;
  char *vocab;
  char *base;
} Frame;

typedef struct {
  RdfaRun *run;
  Frame *frames;
  unsigned depth; /* frames in use */
  unsigned max_depth;
  size_t prefixes_in_scope;
  RdfaNode base_node;
  RdfaNode none;
  RdfaListMap document_lists;
} Walk;

/* ---- small helpers ---- */

static bool is_named(xmlNodePtr n, const char *name)
{
  return n->name && !strcasecmp((const char *)n->name, name);
}

/* Calls f for each white-space separated token of value. */
#define EACH_TOKEN(value, tok, len)                                                       \
  for (const char *tok = (value) + strspn((value), SPACE), *tok##_end = NULL;             \
       *tok && ((len) = strcspn(tok, SPACE), tok##_end = tok + (len), 1);                  \
       tok = tok##_end + strspn(tok##_end, SPACE))

static size_t count_tokens(const char *value)
{
  size_t n = 0, len;
  if (!value) {
    return 0;
  }
  EACH_TOKEN(value, t, len)
  {
    (void)t;
    ++n;
  }
  return n;
}

/* HTML+RDFa: beside @property, rel / rev values that are no CURIE or IRI
 * (no ':') are dropped; an attribute left empty is as if absent. */
static void drop_terms(char **value)
{
  if (!*value) {
    return;
  }
  LwBuf kept = {0};
  size_t len;
  EACH_TOKEN(*value, t, len)
  {
    if (memchr(t, ':', len)) {
      if (kept.len) {
        lw_buf_append_char(&kept, ' ');
      }
      lw_buf_append(&kept, t, len);
    }
  }
  xmlFree(*value);
  *value = kept.len ? (char *)xmlStrdup((const xmlChar *)kept.data) : NULL;
  lw_buf_free(&kept);
}

/* ---- prefixes and language (§7.5 steps 2 to 4) ---- */

static bool add_prefix(Walk *w, Frame *f, const char *prefix, size_t plen, const char *iri,
                       size_t ilen)
{
  if (w->prefixes_in_scope >= LW_RDFA_MAX_PREFIXES) {
    rdfa_report(w->run, "more than %u prefixes in scope: %.*s ignored",
                LW_RDFA_MAX_PREFIXES, (int)(plen < 100 ? plen : 100), prefix);
    return false;
  }
  if (plen == 1 && prefix[0] == '_') {
    return false; /* "_" is the blank nodes' */
  }
  RdfaPrefix *p = calloc(1, sizeof(*p));
  if (!p || !(p->prefix = strndup(prefix, plen)) || !(p->iri = strndup(iri, ilen))) {
    if (p) {
      free(p->prefix);
      free(p);
    }
    return false;
  }
  for (char *c = p->prefix; *c; ++c) {
    *c = (char)(*c >= 'A' && *c <= 'Z' ? *c + 32 : *c);
  }
  p->next = (RdfaPrefix *)f->ctx.prefixes;
  f->ctx.prefixes = p;
  if (!f->own_prefixes) {
    f->own_prefixes = p;
  }
  w->prefixes_in_scope++;
  return true;
}

static bool is_ncname(const char *s, size_t len)
{
  if (!len || (s[0] >= '0' && s[0] <= '9') || s[0] == '-' || s[0] == '.') {
    return false;
  }
  for (size_t i = 0; i < len; ++i) {
    unsigned char c = (unsigned char)s[i];
    if (!(c >= 0x80 || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
          (c >= '0' && c <= '9') || c == '_' || c == '-' || c == '.')) {
      return false;
    }
  }
  return true;
}

/* A prefix's IRI: a relative one resolved against the document's URL (not
 * its <base>, as the suite's 0319 has it). A new string, or NULL. */
static char *prefix_iri(Walk *w, const char *iri, size_t len)
{
  char *s = strndup(iri, len);
  if (s && !lw_uri_is_absolute(s) && w->run->document_url) {
    char *resolved = lw_uri_resolve(w->run->document_url, s);
    free(s);
    s = resolved;
  }
  return s;
}

/* @prefix: "p1: iri1 p2: iri2 ...". */
static void read_prefix_attribute(Walk *w, Frame *f, const char *value)
{
  const char *s = value + strspn(value, SPACE);
  while (*s) {
    size_t len = strcspn(s, SPACE);
    const char *next = s + len + strspn(s + len, SPACE);
    if (len < 2 || s[len - 1] != ':' || !is_ncname(s, len - 1) || !*next) {
      rdfa_report(w->run, "@prefix: \"%.*s\" is no prefix declaration", (int)(len < 100 ? len : 100), s);
      s = next;
      continue;
    }
    size_t ilen = strcspn(next, SPACE);
    char *iri = prefix_iri(w, next, ilen);
    if (iri) {
      add_prefix(w, f, s, len - 1, iri, strlen(iri));
    }
    free(iri);
    s = next + ilen;
    s += strspn(s, SPACE);
  }
}

static void read_xmlns(Walk *w, Frame *f, xmlNodePtr n)
{
  for (xmlNsPtr ns = n->nsDef; ns; ns = ns->next) {
    char *iri = ns->prefix && ns->href && *ns->href
                  ? prefix_iri(w, (const char *)ns->href, strlen((const char *)ns->href))
                  : NULL;
    if (iri) {
      add_prefix(w, f, (const char *)ns->prefix, strlen((const char *)ns->prefix), iri,
                 strlen(iri));
    }
    free(iri);
  }
  for (xmlAttrPtr a = n->properties; a; a = a->next) { /* HTML's tree */
    const char *name = (const char *)a->name;
    if (!a->ns && !strncasecmp(name, "xmlns:", 6) && name[6]) {
      xmlChar *v = xmlNodeListGetString(n->doc, a->children, 1);
      char *iri = v && *v ? prefix_iri(w, (const char *)v, strlen((char *)v)) : NULL;
      if (iri) {
        add_prefix(w, f, name + 6, strlen(name + 6), iri, strlen(iri));
      }
      free(iri);
      xmlFree(v);
    }
  }
}

static void read_vocab(Walk *w, Frame *f, const char *value)
{
  RdfaScope sc = {.run = w->run, .base = f->ctx.base};
  size_t len = strlen(value + strspn(value, SPACE));
  if (!len) {
    f->ctx.vocab = NULL; /* back to the host language's: none */
    return;
  }
  RdfaNode iri;
  if (rdfa_resolve_iri(&sc, value, &iri)) {
    f->vocab = iri.value;
    f->ctx.vocab = f->vocab;
    if (w->base_node.value) {
      rdfa_emit_node(w->run, &w->base_node, RDFA_NS "usesVocabulary", &iri);
    }
  }
}

static void read_lang(Frame *f, const RdfaAttrs *a)
{
  const char *lang = a->value[RDFA_XML_LANG] ? a->value[RDFA_XML_LANG] : a->value[RDFA_LANG];
  if (lang) {
    f->lang = strdup(lang);
    f->ctx.lang = f->lang && *f->lang ? f->lang : NULL;
  }
}

/* XML (SVG, ...): xml:base, resolved against the base in scope. */
static void read_xml_base(Frame *f, const char *value)
{
  char *base = f->ctx.base ? lw_uri_resolve(f->ctx.base, value)
               : lw_uri_is_absolute(value) ? strdup(value)
                                           : NULL;
  if (base) {
    base[strcspn(base, "#")] = '\0';
    f->base = base;
    f->ctx.base = base;
  }
}

/* ---- resources (§7.5 steps 5 and 6) ---- */

typedef struct {
  RdfaAttrs a;
  RdfaScope sc;
  RdfaNode about, resource, href, src; /* value NULL: absent or unresolved */
  RdfaNode typed;
  bool is_root, head_or_body, skip;
  bool explicit_subject; /* not the parent object passed on */
  const Context *parent;
} Element;

static const RdfaNode *first_of(const Element *e, bool with_about)
{
  if (with_about && e->about.value) {
    return &e->about;
  }
  return e->resource.value ? &e->resource
       : e->href.value     ? &e->href
       : e->src.value      ? &e->src
                           : NULL;
}

static RdfaNode parent_object_copy(const Context *c)
{
  return c->parent_object->value ? rdfa_node_copy(c->parent_object) : (RdfaNode){0};
}

/* The root element's subject: as if it had about="" (its base). */
static RdfaNode root_subject(const Element *e)
{
  return e->sc.base ? rdfa_node_iri(e->sc.base) : (RdfaNode){0};
}

/* The subject from @about, else the root's, else the parent object. */
static void subject_from_about(Frame *f, Element *e)
{
  if (e->about.value) {
    f->new_subject = rdfa_node_copy(&e->about);
  } else if (e->is_root) {
    f->new_subject = root_subject(e);
  } else {
    f->new_subject = parent_object_copy(e->parent);
    e->explicit_subject = false;
  }
}

/* Step 5: no @rel, no @rev. */
static void subject_without_rel(Walk *w, Frame *f, Element *e)
{
  const RdfaAttrs *a = &e->a;
  bool property = a->value[RDFA_PROPERTY], typeof_ = a->value[RDFA_TYPEOF];
  if (property && !a->value[RDFA_CONTENT] && !a->value[RDFA_DATATYPE]) {
    subject_from_about(f, e);
    if (typeof_) {
      const RdfaNode *r = first_of(e, false);
      if (e->about.value || e->is_root) {
        e->typed = rdfa_node_copy(&f->new_subject);
      } else if (r) {
        e->typed = rdfa_node_copy(r);
      } else if (e->head_or_body) {
        e->typed = parent_object_copy(e->parent);
      } else {
        e->typed = rdfa_node_blank(w->run);
      }
      if (!e->about.value && !e->is_root) {
        f->object = rdfa_node_copy(&e->typed);
      }
    }
    return;
  }
  const RdfaNode *r = first_of(e, true);
  if (r) {
    f->new_subject = rdfa_node_copy(r);
  } else if (e->is_root) {
    f->new_subject = root_subject(e);
  } else if (e->head_or_body && typeof_) {
    f->new_subject = parent_object_copy(e->parent);
    e->explicit_subject = false;
  } else if (typeof_) {
    f->new_subject = rdfa_node_blank(w->run);
  } else {
    f->new_subject = parent_object_copy(e->parent);
    e->explicit_subject = false;
    e->skip = !property;
  }
  if (typeof_) {
    e->typed = rdfa_node_copy(&f->new_subject);
  }
}

/* Step 6: @rel or @rev. */
static void subject_with_rel(Walk *w, Frame *f, Element *e)
{
  bool typeof_ = e->a.value[RDFA_TYPEOF];
  subject_from_about(f, e);
  bool about = e->about.value || e->is_root;
  if (typeof_ && about) {
    e->typed = rdfa_node_copy(&f->new_subject);
  }
  const RdfaNode *r = first_of(e, false);
  if (r) {
    f->object = rdfa_node_copy(r);
  } else if (typeof_ && !about) {
    f->object = rdfa_node_blank(w->run);
  }
  if (typeof_ && !about) {
    e->typed = rdfa_node_copy(&f->object);
  }
}

/* ---- triples (§7.5 steps 7 to 12) ---- */

static void emit_types(Walk *w, Element *e)
{
  const char *types = e->a.value[RDFA_TYPEOF];
  size_t len;
  if (!types || !e->typed.value) {
    return;
  }
  EACH_TOKEN(types, t, len)
  {
    RdfaNode blank = {0};
    char *iri = rdfa_resolve_token(&e->sc, t, len, true, &blank);
    RdfaNode type = iri ? rdfa_node_iri(iri) : blank;
    if (type.value) {
      rdfa_emit_node(w->run, &e->typed, RDF_NS "type", &type);
    }
    rdfa_node_free(&type);
    free(iri);
  }
}

static void list_append(Walk *w, RdfaList *list, const RdfaObject *o)
{
  if (!list) {
    return;
  }
  if (list->count >= LW_RDFA_MAX_LIST_ITEMS) {
    rdfa_report(w->run, "list longer than %u items: the rest left out", LW_RDFA_MAX_LIST_ITEMS);
    return;
  }
  if (list->count == list->cap) {
    size_t cap = list->cap ? 2 * list->cap : 4;
    RdfaObject *grown = realloc(list->items, cap * sizeof(*grown));
    if (!grown) {
      return;
    }
    list->items = grown;
    list->cap = cap;
  }
  list->items[list->count++] = rdfa_object_copy(o);
}

static RdfaList *list_for(Frame *f, const char *predicate)
{
  return rdfa_list_get(f->ctx.lists, predicate);
}

/* Steps 9 and 10: @rel / @rev with a known or a pending object. */
static void emit_links(Walk *w, Frame *f, Element *e)
{
  const char *rel = e->a.value[RDFA_REL], *rev = e->a.value[RDFA_REV];
  bool inlist = e->a.value[RDFA_INLIST];
  size_t len;
  if (!f->object.value && (rel || rev)) {
    f->object = rdfa_node_blank(w->run);
    size_t n = count_tokens(rel) + count_tokens(rev);
    f->incomplete = calloc(n ? n : 1, sizeof(*f->incomplete));
    if (!f->incomplete) {
      return;
    }
    for (int pass = 0; pass < 2; ++pass) {
      const char *v = pass ? rev : rel;
      if (!v) {
        continue;
      }
      EACH_TOKEN(v, t, len)
      {
        char *iri = rdfa_resolve_token(&e->sc, t, len, false, NULL);
        if (!iri) {
          continue;
        }
        Incomplete *inc = &f->incomplete[f->incomplete_count++];
        if (!pass && inlist) {
          *inc = (Incomplete){.direction = TO_LIST, .list = list_for(f, iri)};
          free(iri);
        } else {
          *inc = (Incomplete){.direction = pass ? REVERSE : FORWARD, .predicate = iri};
        }
      }
    }
    return; /* the real object is still to come: these go out with it */
  }
  if (!f->object.value || !f->new_subject.value) {
    return;
  }
  RdfaObject object = rdfa_object_node(&f->object);
  if (rel) {
    EACH_TOKEN(rel, t, len)
    {
      char *iri = rdfa_resolve_token(&e->sc, t, len, false, NULL);
      if (iri && inlist) {
        list_append(w, list_for(f, iri), &object);
      } else if (iri) {
        rdfa_emit_node(w->run, &f->new_subject, iri, &f->object);
      }
      free(iri);
    }
  }
  if (rev) {
    EACH_TOKEN(rev, t, len)
    {
      char *iri = rdfa_resolve_token(&e->sc, t, len, false, NULL);
      if (iri) {
        rdfa_emit_node(w->run, &f->object, iri, &f->new_subject);
      }
      free(iri);
    }
  }
  rdfa_object_free(&object);
}

static RdfaObject plain(char *value, const Context *ctx)
{
  return (RdfaObject){.type = LW_TERM_LITERAL,
                      .value = value,
                      .lang = ctx->lang ? strdup(ctx->lang) : NULL};
}

static RdfaObject typed(char *value, const char *datatype)
{
  return (RdfaObject){.type = LW_TERM_LITERAL, .value = value, .datatype = strdup(datatype)};
}

/* A literal's text: @content, a <time>'s @datetime, else the element's. */
static char *literal_text(const Frame *f, const Element *e)
{
  if (e->a.value[RDFA_CONTENT]) {
    return strdup(e->a.value[RDFA_CONTENT]);
  }
  if (is_named(f->element, "time") && e->a.value[RDFA_DATETIME]) {
    return strdup(e->a.value[RDFA_DATETIME]);
  }
  return rdfa_text_content(f->element);
}

/* Step 11: the property value. */
static RdfaObject property_value(Frame *f, Element *e)
{
  const RdfaAttrs *a = &e->a;
  const char *dt = a->value[RDFA_DATATYPE];
  size_t dlen = 0;
  const char *dtok = dt ? dt + strspn(dt, SPACE) : NULL;
  dlen = dtok ? strcspn(dtok, SPACE) : 0;
  char *datatype = dlen ? rdfa_resolve_token(&e->sc, dtok, dlen, false, NULL) : NULL;
  RdfaObject v;
  if (datatype && !strcmp(datatype, RDF_NS "XMLLiteral")) {
    v = typed(rdfa_xml_literal(f->element, f->ctx.prefixes), datatype);
  } else if (datatype && !strcmp(datatype, RDF_NS "HTML")) {
    v = typed(rdfa_html_literal(f->element), datatype);
  } else if (datatype) {
    v = typed(literal_text(f, e), datatype);
  } else if (dt) {
    v = plain(literal_text(f, e), &f->ctx); /* datatype="" (or unresolved) */
  } else if (a->value[RDFA_CONTENT]) {
    v = plain(strdup(a->value[RDFA_CONTENT]), &f->ctx);
  } else if (is_named(f->element, "time")) {
    char *text = literal_text(f, e);
    const char *type = text ? rdfa_datetime_type(text) : NULL;
    v = type ? typed(text, type) : plain(text, &f->ctx);
  } else if (!a->value[RDFA_REL] && !a->value[RDFA_REV] && first_of(e, false)) {
    v = rdfa_object_node(first_of(e, false));
  } else if (a->value[RDFA_TYPEOF] && !a->value[RDFA_ABOUT] && e->typed.value) {
    v = rdfa_object_node(&e->typed);
  } else {
    v = plain(rdfa_text_content(f->element), &f->ctx);
  }
  free(datatype);
  return v;
}

static void emit_properties(Walk *w, Frame *f, Element *e)
{
  const char *props = e->a.value[RDFA_PROPERTY];
  size_t len;
  if (!props || !count_tokens(props) || !f->new_subject.value) {
    return;
  }
  RdfaObject value = property_value(f, e);
  EACH_TOKEN(props, t, len)
  {
    char *iri = value.value ? rdfa_resolve_token(&e->sc, t, len, false, NULL) : NULL;
    if (iri && e->a.value[RDFA_INLIST]) {
      list_append(w, list_for(f, iri), &value);
    } else if (iri) {
      rdfa_emit(w->run, &f->new_subject, iri, &value);
    }
    free(iri);
  }
  rdfa_object_free(&value);
}

/* Step 12: the parent's pending triples get this subject as their object. */
static void complete_incomplete(Walk *w, Frame *f, const Context *parent)
{
  for (size_t i = 0; i < parent->incomplete_count; ++i) {
    const Incomplete *inc = &parent->incomplete[i];
    if (inc->direction == TO_LIST) {
      RdfaObject o = rdfa_object_node(&f->new_subject);
      list_append(w, inc->list, &o);
      rdfa_object_free(&o);
    } else if (parent->parent_subject->value && inc->direction == FORWARD) {
      rdfa_emit_node(w->run, parent->parent_subject, inc->predicate, &f->new_subject);
    } else if (parent->parent_subject->value) {
      rdfa_emit_node(w->run, &f->new_subject, inc->predicate, parent->parent_subject);
    }
  }
}

/* Step 14: the lists an element started, once it ends. */
static void emit_lists(Walk *w, const RdfaNode *subject, RdfaListMap *map)
{
  RdfaNode nil = rdfa_node_iri(RDF_NS "nil");
  for (RdfaList *l = map->lists; l && subject->value; l = l->next) {
    if (!l->count) {
      rdfa_emit_node(w->run, subject, l->predicate, &nil);
      continue;
    }
    RdfaNode node = rdfa_node_blank(w->run);
    rdfa_emit_node(w->run, subject, l->predicate, &node);
    for (size_t i = 0; i < l->count; ++i) {
      rdfa_emit(w->run, &node, RDF_NS "first", &l->items[i]);
      RdfaNode next = i + 1 < l->count ? rdfa_node_blank(w->run) : rdfa_node_copy(&nil);
      rdfa_emit_node(w->run, &node, RDF_NS "rest", &next);
      rdfa_node_free(&node);
      node = next;
    }
    rdfa_node_free(&node);
  }
  rdfa_node_free(&nil);
  rdfa_list_map_clear(map);
}

/* ---- one element ---- */

static void resolve_resources(Element *e)
{
  const RdfaAttrs *a = &e->a;
  if (a->value[RDFA_ABOUT]) {
    rdfa_resolve_resource(&e->sc, a->value[RDFA_ABOUT], &e->about);
  }
  if (a->value[RDFA_RESOURCE]) {
    rdfa_resolve_resource(&e->sc, a->value[RDFA_RESOURCE], &e->resource);
  }
  if (a->value[RDFA_HREF]) {
    rdfa_resolve_iri(&e->sc, a->value[RDFA_HREF], &e->href);
  }
  if (a->value[RDFA_SRC]) {
    rdfa_resolve_iri(&e->sc, a->value[RDFA_SRC], &e->src);
  }
}

static void element_free(Element *e)
{
  rdfa_attrs_free(&e->a);
  rdfa_node_free(&e->about);
  rdfa_node_free(&e->resource);
  rdfa_node_free(&e->href);
  rdfa_node_free(&e->src);
  rdfa_node_free(&e->typed);
}

/* The context the children get (step 13). */
static void child_context(Walk *w, Frame *f, const Element *e)
{
  const Context *p = e->parent;
  if (e->skip) {
    f->ctx.parent_subject = p->parent_subject;
    f->ctx.parent_object = p->parent_object;
    f->ctx.incomplete = p->incomplete;
    f->ctx.incomplete_count = p->incomplete_count;
    return;
  }
  f->ctx.parent_subject = f->new_subject.value ? &f->new_subject : p->parent_subject;
  f->ctx.parent_object = f->object.value        ? &f->object
                         : f->new_subject.value ? &f->new_subject
                                                : p->parent_subject;
  f->ctx.incomplete = f->incomplete;
  f->ctx.incomplete_count = f->incomplete_count;
  (void)w;
}

/* Steps 1 to 13 for the element of frame f, whose parent's context is
 * parent. */
static void process_element(Walk *w, Frame *f, const Context *parent)
{
  Element e = {.parent = parent};
  f->ctx = *parent;
  rdfa_attrs_read(f->element, &e.a);
  w->run->line = (unsigned)xmlGetLineNo(f->element) > 0 ? (unsigned)xmlGetLineNo(f->element) : 0;
  bool html = w->run->host == LW_RDFA_HOST_HTML;
  e.is_root = f->element == xmlDocGetRootElement(f->element->doc);
  e.head_or_body = w->run->host != LW_RDFA_HOST_XML &&
                   (is_named(f->element, "head") || is_named(f->element, "body"));
  if (html && e.a.value[RDFA_PROPERTY]) {
    drop_terms(&e.a.value[RDFA_REL]);
    drop_terms(&e.a.value[RDFA_REV]);
  }
  if (e.a.value[RDFA_VOCAB]) {
    read_vocab(w, f, e.a.value[RDFA_VOCAB]);
  }
  read_xmlns(w, f, f->element);
  if (e.a.value[RDFA_PREFIX]) {
    read_prefix_attribute(w, f, e.a.value[RDFA_PREFIX]);
  }
  read_lang(f, &e.a);
  if (e.a.value[RDFA_XML_BASE] && w->run->host == LW_RDFA_HOST_XML) {
    read_xml_base(f, e.a.value[RDFA_XML_BASE]);
  }
  e.explicit_subject = true;
  e.sc = (RdfaScope){.run = w->run,
                     .base = f->ctx.base,
                     .prefixes = f->ctx.prefixes,
                     .vocab = f->ctx.vocab};
  resolve_resources(&e);
  if (!e.a.value[RDFA_REL] && !e.a.value[RDFA_REV]) {
    subject_without_rel(w, f, &e);
  } else {
    subject_with_rel(w, f, &e);
  }
  emit_types(w, &e);
  /* step 8: a new list mapping for a subject set here (as the suite has it:
   * each <div about=""> its own lists) or one that is not the parent
   * subject (the §7.5 text compares with the parent object, which merges
   * the lists of an element and of the resource its @rel links) */
  if (f->new_subject.value &&
      (e.explicit_subject || !rdfa_node_equal(&f->new_subject, parent->parent_subject))) {
    f->owns_lists = true;
    f->ctx.lists = &f->own_lists;
  }
  emit_links(w, f, &e);
  emit_properties(w, f, &e);
  if (!e.skip && f->new_subject.value) {
    complete_incomplete(w, f, parent);
  }
  child_context(w, f, &e);
  element_free(&e);
}

static void frame_end(Walk *w, Frame *f)
{
  if (f->owns_lists) {
    emit_lists(w, &f->new_subject, &f->own_lists);
  }
  rdfa_node_free(&f->new_subject);
  rdfa_node_free(&f->object);
  RdfaPrefix *p = (RdfaPrefix *)f->ctx.prefixes;
  while (f->own_prefixes && p) {
    RdfaPrefix *next = p->next;
    bool last = p == f->own_prefixes;
    free(p->prefix);
    free(p->iri);
    free(p);
    w->prefixes_in_scope--;
    if (last) {
      break;
    }
    p = next;
  }
  for (size_t i = 0; i < f->incomplete_count; ++i) {
    free(f->incomplete[i].predicate);
  }
  free(f->incomplete);
  free(f->lang);
  free(f->vocab);
  free(f->base);
  *f = (Frame){0};
}

/* ---- the tree ---- */

static xmlNodePtr first_element(xmlNodePtr n)
{
  while (n && n->type != XML_ELEMENT_NODE) {
    n = n->next;
  }
  return n;
}

static const Context *context_of(Walk *w, const Context *root)
{
  return w->depth ? &w->frames[w->depth - 1].ctx : root;
}

/* Opens element n: a frame, processed. LW_ERR_LIMIT past max_depth. */
static LwStatus open_element(Walk *w, xmlNodePtr n, const Context *root)
{
  if (w->depth >= w->max_depth) {
    w->run->line = (unsigned)xmlGetLineNo(n) > 0 ? (unsigned)xmlGetLineNo(n) : 0;
    /* stop: nothing more goes out, not even the open elements' lists */
    w->run->stop = lw_error_set(w->run->err, LW_ERR_LIMIT,
                                "line %u: elements nested deeper than %u levels",
                                w->run->line, w->max_depth);
    return w->run->stop;
  }
  Frame *f = &w->frames[w->depth];
  *f = (Frame){.element = n};
  const Context *parent = context_of(w, root);
  w->depth++;
  process_element(w, f, parent);
  return w->run->stop;
}

LwStatus rdfa_walk(RdfaRun *run, xmlNodePtr root)
{
  Walk w = {.run = run,
            .max_depth = run->options->max_depth ? run->options->max_depth
                                                 : LW_RDFA_DEFAULT_MAX_DEPTH};
  w.frames = calloc(w.max_depth, sizeof(*w.frames));
  if (!w.frames) {
    return lw_error_set(run->err, LW_ERR_NOMEM, "out of memory reading RDFa");
  }
  w.base_node = run->base ? rdfa_node_iri(run->base) : (RdfaNode){0};
  Context top = {.parent_subject = &w.base_node,
                 .parent_object = &w.none,
                 .lists = &w.document_lists,
                 .base = run->base};
  LwStatus st = open_element(&w, root, &top);
  while (st == LW_OK && w.depth) {
    Frame *f = &w.frames[w.depth - 1];
    xmlNodePtr child = f->element->children ? first_element(f->element->children) : NULL;
    if (child) {
      st = open_element(&w, child, &top);
      continue;
    }
    /* no more children: close elements until one has a next sibling */
    while (w.depth) {
      f = &w.frames[w.depth - 1];
      xmlNodePtr next = first_element(f->element->next);
      frame_end(&w, f);
      w.depth--;
      if (next && w.depth) {
        st = open_element(&w, next, &top);
        break;
      }
    }
  }
  while (w.depth) {
    frame_end(&w, &w.frames[--w.depth]);
  }
  emit_lists(&w, &w.base_node, &w.document_lists);
  rdfa_node_free(&w.base_node);
  free(w.frames);
  return st != LW_OK ? st : run->stop;
}
