# Instructions counted by callgrind that belong to libbf16shim.so, from a callgrind output
# file: the self cost of the functions in libbf16shim.so, and the inclusive cost of their
# calls into objects that are neither the shim nor the benchmark program (bench/), cuBLAS,
# cuBLASLt, the runtime, the driver or the simulator's core (what the shim forwards to).
#
# Callgrind's file: a cost line belongs to the function of the last fn= (its object: the
# last ob=); the line after calls= is the callee's inclusive cost, the callee in the object
# of the cob= since the last call (else the caller's).  Objects and functions are named at
# first use, later by their number alone.
/^c?ob=/ { id = $1; sub(/^c?ob=/, "", id); if (NF > 1) name[id] = $2 }
/^ob=/ { ob = name[id]; next }
/^fn=/ { fob = ob; cob = ""; next }
/^cob=/ { cob = name[id]; next }
/^calls=/ { call = 1; next }
/^[0-9+*-]/ {
  shim = fob ~ /libbf16shim/
  if (call) {
    callee = cob != "" ? cob : fob
    if (shim && callee !~ /libbf16shim|libcu|libsimcuda|bench\//) own += $NF
    call = 0; cob = ""
  } else if (shim) own += $NF
}
END { print own + 0 }
