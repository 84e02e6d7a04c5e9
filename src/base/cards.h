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

/* What public measurements of a part give (doc/facts.md, "Measured rates of real cards"):
 * the best rates of PyTorch's square matrix products, TFLOPS, fp32 and fp16 (fp16 operands,
 * fp32 accumulation: tensor cores where the part has them); and the bandwidth its small
 * GEMMs reach, GB/s.  0: not measured.  They replace the figures the model derives from the
 * clocks, which a part limited by its power or cooling does not sustain. */
struct card_measured {
	const char *name;            /* as the driver reports it, up to a memory-size suffix */
	double fp32_tflops, fp16_tflops;
	double gemm_gbps;
};
/* The part's measurements, or NULL (name NULL or unknown). */
const struct card_measured *card_measured(const char *name);

#endif
