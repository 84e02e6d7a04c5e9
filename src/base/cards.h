/* What a GPU part has beyond its compute capability, by the name the driver reports: the
 * facts that differ between parts of one architecture (doc/facts.md).  Pure data, no CUDA. */
#ifndef BF16SHIM_CARDS_H
#define BF16SHIM_CARDS_H

/* Does a part of this architecture and name have tensor cores?  GTX 16xx are sm_75 without
 * them (doc/facts.md); name NULL: the architecture alone. */
int card_tensor_cores(int sm, const char *name);
/* Does it run fp16 with fp32 accumulation at half its tensor cores' rate?  GeForce Turing
 * does, the Tesla, Quadro and TITAN parts do not; name NULL: no. */
int card_tc_half_rate(int sm, const char *name);

#endif
