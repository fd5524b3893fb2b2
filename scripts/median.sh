# Sourced by the load scripts: median ARGS... prints the median of the
# numbers given (the mean of the middle two when there is an even count).
median() { printf '%s\n' "$@" | sort -g | awk '{v[NR]=$1} END{print (NR%2) ? v[(NR+1)/2] : (v[NR/2]+v[NR/2+1])/2}'; }
