/* facts.c: the facts a run measures of a kernel, by key (facts.h's FACTS,
 * expanded once more: into the table the schemas and mpcc-tune look keys
 * up in). */
#include <string.h>

#include "model/facts.h"

const struct factdef factdefs[NFACT] = {
#define FACT(id, key, kind) [id] = {key, kind},
	FACTS(FACT)
#undef FACT
};

int
fact_find(const char *key)
{
	for (int i = 0; i < NFACT; i++)
		if (!strcmp(factdefs[i].key, key))
			return i;
	return -1;
}
