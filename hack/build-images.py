#!/usr/bin/env python3
"""Builds the container images the real node runs, without a registry.

Each image is one layer packed from files this machine already has (Debian's
busybox-static), written as an image tarball (the layout `docker save`
writes: manifest.json, the image config and the layer) that
`ctr -n k8s.io images import` loads into containerd, and <name>.ref with
the image's name. The tarballs are reproducible: same input files, same
bytes, same image ID.

  hack/build-images.py OUT_DIR

Images (the tag is the busybox package's upstream version):
  localhost/vtenant/busybox:<v>   busybox and its applets; runs `sh`
  localhost/vtenant/pause:<v>     the pod sandbox: waits until it is stopped
"""
import hashlib
import io
import json
import os
import subprocess
import sys
import tarfile

BUSYBOX = "/bin/busybox"
PATH_ENV = "PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"


def busybox_version():
    out = subprocess.run(["dpkg-query", "-W", "-f=${Version}", "busybox-static"],
                         capture_output=True, text=True, check=True).stdout
    # "1:1.35.0-4+deb12u1+b1" -> "1.35.0"
    return out.split(":", 1)[-1].split("-", 1)[0]


def applets():
    out = subprocess.run([BUSYBOX, "--list"], capture_output=True, text=True, check=True).stdout
    return sorted(a for a in out.split() if a and a != "busybox")


def add_entry(tar, name, kind, data=b"", mode=0o755, target=""):
    info = tarfile.TarInfo(name)
    info.mtime = 0
    info.uid = info.gid = 0
    info.uname = info.gname = "root"
    info.mode = mode
    if kind == "dir":
        info.type = tarfile.DIRTYPE
        tar.addfile(info)
    elif kind == "link":
        info.type = tarfile.SYMTYPE
        info.linkname = target
        info.mode = 0o777
        tar.addfile(info)
    else:
        info.size = len(data)
        tar.addfile(info, io.BytesIO(data))


def busybox_layer():
    """A rootfs: busybox at /bin/busybox, every applet a link to it."""
    with open(BUSYBOX, "rb") as f:
        binary = f.read()
    buf = io.BytesIO()
    with tarfile.open(fileobj=buf, mode="w", format=tarfile.USTAR_FORMAT) as tar:
        for d in ["bin", "dev", "etc", "proc", "root", "sys", "tmp", "var", "var/run"]:
            add_entry(tar, d, "dir", mode=0o1777 if d == "tmp" else 0o755)
        add_entry(tar, "bin/busybox", "file", binary)
        for a in applets():
            add_entry(tar, "bin/" + a, "link", target="busybox")
        add_entry(tar, "etc/passwd", "file", b"root:x:0:0:root:/root:/bin/sh\n"
                  b"nobody:x:65534:65534:nobody:/:/bin/false\n", mode=0o644)
        add_entry(tar, "etc/group", "file", b"root:x:0:\nnogroup:x:65534:\n", mode=0o644)
    return buf.getvalue()


def image_tarball(path, repo_tag, layer, config):
    layer_digest = hashlib.sha256(layer).hexdigest()
    config = dict(config)
    config.update({"architecture": "amd64", "os": "linux",
                   "rootfs": {"type": "layers", "diff_ids": ["sha256:" + layer_digest]}})
    config_bytes = json.dumps(config, sort_keys=True, separators=(",", ":")).encode()
    config_digest = hashlib.sha256(config_bytes).hexdigest()
    manifest = [{"Config": config_digest + ".json", "RepoTags": [repo_tag],
                 "Layers": [layer_digest + "/layer.tar"]}]
    tmp = path + ".tmp"
    with tarfile.open(tmp, mode="w", format=tarfile.USTAR_FORMAT) as tar:
        add_entry(tar, layer_digest, "dir")
        add_entry(tar, layer_digest + "/layer.tar", "file", layer, mode=0o644)
        add_entry(tar, config_digest + ".json", "file", config_bytes, mode=0o644)
        add_entry(tar, "manifest.json", "file", json.dumps(manifest).encode(), mode=0o644)
    os.replace(tmp, path)
    return config_digest


def main():
    if len(sys.argv) != 2:
        sys.exit("usage: hack/build-images.py OUT_DIR")
    out = sys.argv[1]
    if not os.access(BUSYBOX, os.X_OK):
        sys.exit("build-images: %s is missing; hack/install-deps.sh installs busybox-static" % BUSYBOX)
    os.makedirs(out, exist_ok=True)
    version = busybox_version()
    layer = busybox_layer()
    images = {
        "busybox": {"config": {"Cmd": ["sh"], "Env": [PATH_ENV]}},
        # The sandbox holds the pod's namespaces and must only wait: a shell
        # that sleeps until SIGTERM (kill and wait, so the signal is not
        # delayed by the sleep), then exits 0.
        "pause": {"config": {"Entrypoint": ["/bin/sh", "-c",
                                            "trap 'exit 0' TERM INT; "
                                            "while :; do sleep 3600 & wait $!; done"],
                             "Env": [PATH_ENV]}},
    }
    for name, spec in images.items():
        tag = "localhost/vtenant/%s:%s" % (name, version)
        digest = image_tarball(os.path.join(out, name + ".tar"), tag, layer, spec)
        with open(os.path.join(out, name + ".ref"), "w") as f:
            f.write(tag + "\n")
        print("build-images: %s (sha256:%s) -> %s" % (tag, digest[:12], os.path.join(out, name + ".tar")))


if __name__ == "__main__":
    main()
