# bf16shim doctor's report: reads the capability table (bf16shim-capabilities: lines starting
# "cap|") and then the probe's key=value facts, and prints the libraries found and, for each
# GPU, what is native, what bf16shim provides and what is unavailable.
# Variables: shimlib (the library's path or why not found), lower (1 if bf16shim lower is
# there), sim (1 on the simulated stack).  Exit status 1 when no GPU can be used.
function arch(sm) {
	if (sm >= 100) return "Blackwell"
	if (sm >= 90) return "Hopper"
	if (sm == 89) return "Ada"
	if (sm >= 80) return "Ampere"
	if (sm == 75) return "Turing"
	if (sm >= 70) return "Volta"
	if (sm >= 60) return "Pascal"
	if (sm >= 50) return "Maxwell"
	return "Kepler or older"
}
function lib(label, key) {
	if (fact[key ".lib"] == "" || fact[key ".lib"] == "none")
		printf "%-17s not found by the dynamic loader\n", label
	else
		printf "%-17s %-9s %s\n", label, fact[key ".version"], fact[key ".lib"]
}
# Prints text in lines of at most 88 columns, each after indent.
function wrap(indent, text,   n, w, i, line) {
	n = split(text, w, " ")
	line = ""
	for (i = 1; i <= n; i++) {
		if (line != "" && length(indent line " " w[i]) > 88) {
			print indent line
			line = ""
		}
		line = line == "" ? w[i] : line " " w[i]
	}
	if (line != "") print indent line
}
function status_text(s) {
	if (s == "native") return "native"
	if (s == "shim") return "provided by bf16shim"
	if (s == "lower") return lower ? "provided by bf16shim lower" : "provided by bf16shim lower (bf16shim-lower not found: reinstall bf16shim)"
	return "unavailable"
}
/^#/ { next }
/^cap\|/ { rows[++nrows] = substr($0, 5); next }
{ i = index($0, "="); if (i > 1) fact[substr($0, 1, i - 1)] = substr($0, i + 1) }
END {
	printf "%-17s %s\n", "bf16shim library", shimlib
	if (fact["driver.lib"] == "none")
		printf "%-17s none (%s)\n", "NVIDIA driver", fact["driver.error"]
	else
		printf "%-17s %-9s %s\n", "NVIDIA driver", "CUDA " fact["driver.version"], fact["driver.lib"]
	lib("CUDA runtime", "runtime")
	lib("cuBLAS", "cublas")
	lib("cuBLASLt", "cublaslt")
	n = fact["devices"] + 0
	if (fact["driver.lib"] == "none") {
		print ""
		print "No NVIDIA driver: no program on this machine can use a GPU, with or without"
		print "bf16shim.  On a machine with an NVIDIA GPU, install its driver.  To see what"
		print "bf16shim does for an older GPU without one: bf16shim doctor --sim sm_61, or"
		print "bf16shim demo."
		exit 1
	}
	if (n == 0) {
		print ""
		printf "The driver is installed but reports no usable GPU (%s).\n", \
			fact["driver.error"] != "" ? fact["driver.error"] : "0 devices"
		print "Check that the card is seen (nvidia-smi) and that CUDA_VISIBLE_DEVICES is not empty."
		exit 1
	}
	if (fact["cublas.lib"] == "" || fact["cublas.lib"] == "none") {
		print ""
		print "cuBLAS is not on the loader path: programs that bundle it (PyTorch wheels) load"
		print "their own copy, which bf16shim finds at run time."
	}
	split(fact["cublas.version"], cv, ".")
	for (d = 0; d < n; d++) {
		sm = fact["device." d ".sm"] + 0
		tc = fact["device." d ".tensor_cores"] + 0
		print ""
		printf "GPU %d: %s, sm_%d (%s), %s MiB, %s\n", d, fact["device." d ".name"], sm, \
			arch(sm), fact["device." d ".memory_mb"], tc ? "tensor cores" : "no tensor cores"
		if (!sim && cv[1] + 0 >= 13 && sm < 75)
			printf "  note: CUDA 13 dropped sm_50-sm_72: use a CUDA 12 build of your framework\n"
		seen = ""
		for (r = 1; r <= nrows; r++) {
			split(rows[r], f, "|")
			if (index(seen, "|" f[1] "|")) continue
			if (sm < f[2] + 0 || sm > f[3] + 0) continue
			if ((f[4] == "yes" && !tc) || (f[4] == "no" && tc)) continue
			seen = seen "|" f[1] "|"
			printf "  %-30s %s\n", f[1], status_text(f[5])
			if (f[6] != "") wrap("      ", f[6])
		}
		model(d)
	}
}
# The cost model's times for typical bf16 GEMMs on GPU d (the probe's device.D.model.I
# lines: label|native us|with bf16shim us|path): modeled from the driver's figures, not
# measured.
function model(d,   i, f, how) {
	if (fact["device." d ".model"] != "1") return
	printf "  %-30s %12s %14s\n", "modeled times (not measured)", "natively", "with bf16shim"
	for (i = 0; ("device." d ".model." i) in fact; i++) {
		split(fact["device." d ".model." i], f, "|")
		how = f[4] == "pass" ? "(passed through)" : "(" f[4] " path)"
		printf "    %-28s %12s %11s us %s\n", f[1], f[2] == "-" ? "refused" : f[2] " us", f[3], how
	}
}
