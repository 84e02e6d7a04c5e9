/* The reasons a rewrite path could not be taken (why.h): their words and their culprits,
 * from the one list. */
#include "why.h"

static const struct {
	const char *text;
	enum log_culprit culprit;
} reasons[] = {
#define X(id, culprit, text) [id] = {text, culprit},
	WHY_REASONS(X)
#undef X
};

const char *why_text(enum why w)
{
	return reasons[w].text;
}

enum log_culprit why_culprit(enum why w)
{
	return reasons[w].culprit;
}
