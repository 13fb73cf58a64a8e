# Prints this node's IPv4 address on the interface named by i (eth0, the overlay) and nothing else:
# from `ip -4 -o addr`, else ifconfig (old and new formats), else python3's SIOCGIFADDR. An empty
# line when the interface has no IPv4 address.
a=$(ip -4 -o addr show dev "$i" 2>/dev/null | awk '{sub(/\/.*/, "", $4); print $4; exit}')
[ -n "$a" ] || a=$(ifconfig "$i" 2>/dev/null | awk '{for (i = 1; i < NF; i++) if ($i == "inet") {sub(/^addr:/, "", $(i + 1)); print $(i + 1); exit}}')
[ -n "$a" ] || a=$(python3 -c 'import fcntl, socket, struct, sys; s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM); print(socket.inet_ntoa(fcntl.ioctl(s.fileno(), 0x8915, struct.pack("256s", sys.argv[1].encode()))[20:24]))' "$i" 2>/dev/null)
printf '%s\n' "$a"
