#!/usr/bin/env python3
"""Writes the two small sysfs trees `cmax bench net --sysroot` reads for the
GPU-NIC affinity (see README.md): sysroot-b200-efa (an 8 x B200 node with
one 400 Gb/s EFA device per GPU behind the GPU's PCIe switch, and an ENA
front-end NIC that is no RDMA device) and sysroot-gb300-tray (a GB300 tray:
4 GPUs, each behind the PCIe switch of its own 800G ConnectX-8, and a
BlueField-3 on the Grace root port for the front-end, which is no rail).

Only what cmax reads is written: /sys/devices/... directories with vendor,
device and class; /sys/bus/pci/devices/<bdf> links to them;
/sys/class/infiniband/<dev>/device links and ports/1/{rate,state,
phys_state,link_layer} as the kernel prints them (ib core sysfs.c:
rate "%d%s Gb/sec (%dX%s)", state "4: ACTIVE"; the EFA driver reports a
400 Gb/s link as 8X HDR, efa_verbs.c efa_link_gbps_to_speed_and_width); and
/dev/nvidiaN. The layouts are synthetic, modelled on the vendors' block
diagrams, not dumps of a real machine."""
import os
import shutil

HERE = os.path.dirname(os.path.abspath(__file__))


def w(root, rel, text):
    p = os.path.join(root, rel.lstrip("/"))
    os.makedirs(os.path.dirname(p), exist_ok=True)
    with open(p, "w") as f:
        f.write(text + "\n")


def link(root, rel, target):
    p = os.path.join(root, rel.lstrip("/"))
    os.makedirs(os.path.dirname(p), exist_ok=True)
    if not os.path.islink(p):
        os.symlink(target, p)


def pci(root, chain, vendor, device, cls):
    """chain: ["pci0000:12", "0000:12:01.0", ..., bdf]; every element below
    the host bridge gets ids (bridges as 0x060400)"""
    for k in range(1, len(chain)):
        d = "/sys/devices/" + "/".join(chain[: k + 1])
        last = k == len(chain) - 1
        w(root, d + "/vendor", vendor if last else "0x1000")
        w(root, d + "/device", device if last else "0xc030")
        w(root, d + "/class", cls if last else "0x060400")
        bdf = chain[k]
        link(root, "/sys/bus/pci/devices/" + bdf, "../../../devices/" + "/".join(chain[: k + 1]))
    return "/".join(chain)


def rdma(root, name, devpath, rate, layer):
    link(root, "/sys/class/infiniband/%s/device" % name, "../../../devices/" + devpath)
    w(root, "/sys/class/infiniband/%s/ports/1/rate" % name, rate)
    w(root, "/sys/class/infiniband/%s/ports/1/state" % name, "4: ACTIVE")
    w(root, "/sys/class/infiniband/%s/ports/1/phys_state" % name, "5: LinkUp")
    w(root, "/sys/class/infiniband/%s/ports/1/link_layer" % name, layer)


def fresh(name):
    root = os.path.join(HERE, name, "root")
    shutil.rmtree(os.path.join(HERE, name), ignore_errors=True)
    os.makedirs(root)
    return root


def b200_efa():
    root = fresh("sysroot-b200-efa")
    for i, g in enumerate((0x12, 0x2a, 0x42, 0x5a, 0x92, 0xaa, 0xc2, 0xda)):
        hb, rp = "pci0000:%02x" % (g - 3), "0000:%02x:01.0" % (g - 3)
        us, ds0, ds1 = "0000:%02x:00.0" % (g - 2), "0000:%02x:00.0" % (g - 1), "0000:%02x:01.0" % (g - 1)
        pci(root, [hb, rp, us, ds0, "0000:%02x:00.0" % g], "0x10de", "0x2901", "0x030200")
        efa = pci(root, [hb, rp, us, ds1, "0000:%02x:00.0" % (g + 1)], "0x1d0f", "0xefa3", "0x020000")
        rdma(root, "rdmap%ds0" % (g + 1), efa, "400 Gb/sec (8X HDR)", "Unknown")
        w(root, "/dev/nvidia%d" % i, "")
    pci(root, ["pci0000:00", "0000:00:05.0"], "0x1d0f", "0xec20", "0x020000")  # ENA, no RDMA
    w(root, "/dev/nvidiactl", "")


def gb300_tray():
    root = fresh("sysroot-gb300-tray")
    for i, dom in enumerate(("0008", "0009", "0018", "0019")):
        hb, rp, us = "pci%s:00" % dom, "%s:00:00.0" % dom, "%s:01:00.0" % dom
        nic = pci(root, [hb, rp, us, "%s:02:00.0" % dom, "%s:03:00.0" % dom], "0x15b3", "0x1023", "0x020700")
        pci(root, [hb, rp, us, "%s:02:01.0" % dom, "%s:04:00.0" % dom], "0x10de", "0x31c2", "0x030200")
        rdma(root, "mlx5_%d" % i, nic, "800 Gb/sec (4X XDR)", "InfiniBand")
        w(root, "/dev/nvidia%d" % i, "")
    bf3 = pci(root, ["pci0000:00", "0000:00:00.0", "0000:01:00.0"], "0x15b3", "0xa2dc", "0x020000")
    rdma(root, "mlx5_4", bf3, "200 Gb/sec (4X HDR)", "Ethernet")
    w(root, "/dev/nvidiactl", "")


if __name__ == "__main__":
    b200_efa()
    gb300_tray()
