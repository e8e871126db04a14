#!/bin/sh
# disk-contention load: repeatedly write 32 MiB with O_DSYNC, until $1 seconds passed
end=$(( $(date +%s) + ${1:-600} ))
while [ $(date +%s) -lt $end ]; do
  dd if=/dev/zero of=/tmp/sled-stress-ioburn bs=256k count=128 oflag=dsync conv=fsync 2>/dev/null
done
rm -f /tmp/sled-stress-ioburn
