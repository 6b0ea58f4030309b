/*
 * tests/unit/doc_text.h - the documents of the source tree as the option tests read them
 * (doc_text.c).
 */
#ifndef MEDIASCAN_DOC_TEXT_H
#define MEDIASCAN_DOC_TEXT_H

/* The source root the documents are read under (the test's first argument). */
extern const char *doc_src_root;

/* Return the text of the file at doc_src_root/rel (malloc'd); fail the test if unreadable. */
char *doc_slurp(const char *rel);
/* Return a copy of text from the line starting with from up to the next starting with to. */
char *doc_section(const char *text, const char *from, const char *to);
/* Return 1 if the words of a ("x y z", "x|y|z") are those of b, in any order. */
int doc_same_words(const char *a, const char *b);
/* Return 1 if every word of a ("x|y") is one of b ("x y z"). */
int doc_words_within(const char *a, const char *b);

#endif
