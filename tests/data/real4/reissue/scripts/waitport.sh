# waitport PORT: wait up to 30 s until 127.0.0.1:PORT accepts connections
waitport() { for i in $(seq 1 60); do (exec 3<>/dev/tcp/127.0.0.1/$1) 2>/dev/null && return 0; sleep 0.5; done; echo "port $1 never opened" >&2; return 1; }
