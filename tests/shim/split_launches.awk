# The simulator's call log: how many kernel launches have a grid of more than one in z.
# Where every GEMM is one batch item, those are the fused path's splits of k (cost.h,
# cost_fused_splits).  Usage: awk -f split_launches.awk LOG
$4 ~ /^cuLaunchKernel/ {
  g = $0; sub(/.*grid=/, "", g); split(g, d, /[ ,]/)
  if (d[3] > 1) n++
}
END { print n + 0 }
