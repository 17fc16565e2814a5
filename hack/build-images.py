#!/usr/bin/env python3
"""Builds the container images the real node runs, without a registry.

Each image is one layer packed from files this machine already has (Debian's
busybox-static), written as an image tarball (the layout `docker save`
writes: manifest.json, the image config and the layer) that
`ctr -n k8s.io images import` loads into containerd, and <name>.ref with
the image's name. The tarballs are reproducible: same input files, same
bytes, same image ID.

  hack/build-images.py OUT_DIR [--programs BUILD_DIR TOOLS_BIN]

Images (the tag is the busybox package's upstream version):
  localhost/vtenant/busybox:<v>   busybox and its applets; runs `sh`
  localhost/vtenant/pause:<v>     the pod sandbox: waits until it is stopped

With --programs, also the image the chart and the StatefulSet backend run
(programs.tar, programs.ref): in /usr/local/bin vtenant's programs from
BUILD_DIR (stripped of debug information, with the shared libraries and
the loader they need, taken from this machine), kube-apiserver,
kube-controller-manager and etcd from TOOLS_BIN, and busybox. One image
under several names, so that the chart's `image` and the operator's
--image-registry/--etcd-image all find it:
  localhost/vtenant/vtenant:<content hash>
  localhost/vtenant/kube-apiserver:<Kubernetes version>
  localhost/vtenant/kube-controller-manager:<Kubernetes version>
  localhost/vtenant/etcd:<etcd version>
The vtenant tag is a hash of the layer: new programs, a new tag, so that
`helm upgrade --set image.tag=...` rolls the Deployments.
"""
import hashlib
import io
import json
import os
import subprocess
import sys
import tarfile
import tempfile

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


VTENANT_PROGRAMS = ["operator/vtenant-operator", "scheduler/vtenant-scheduler",
                    "scheduler/vtenant-gpu-reservation", "syncer/vtenant-syncer", "cli/vtenant"]
CONTROL_PLANE = ["kube-apiserver", "kube-controller-manager", "etcd"]


def shared_libraries(binary):
    """The files `ldd` says `binary` loads: [(path in the image, path here)]."""
    out = subprocess.run(["ldd", binary], capture_output=True, text=True).stdout
    found = []
    for line in out.splitlines():
        line = line.strip()
        if "=>" in line:
            path = line.split("=>", 1)[1].strip().split(" ", 1)[0]
        else:
            path = line.split(" ", 1)[0]
        if path.startswith("/"):
            found.append((path.lstrip("/"), os.path.realpath(path)))
    return found


def stripped(binary):
    """`binary` without its debug information (RelWithDebInfo builds carry
    hundreds of megabytes of it)."""
    with tempfile.NamedTemporaryFile() as copy:
        subprocess.run(["objcopy", "--strip-debug", binary, copy.name], check=True)
        return copy.read()


def version_of(program, flag, prefix):
    out = subprocess.run([program, flag], capture_output=True, text=True, check=True).stdout
    for line in out.splitlines():
        if line.startswith(prefix):
            return line[len(prefix):].strip()
    sys.exit("build-images: cannot read the version of %s" % program)


def programs_layer(build_dir, tools_bin):
    buf = io.BytesIO()
    files = {}  # path in the image -> bytes
    for rel in VTENANT_PROGRAMS:
        binary = os.path.join(build_dir, rel)
        if not os.access(binary, os.X_OK):
            sys.exit("build-images: %s is missing; build it first" % binary)
        files["usr/local/bin/" + os.path.basename(rel)] = stripped(binary)
        for inside, here in shared_libraries(binary):
            if inside not in files:
                with open(here, "rb") as f:
                    files[inside] = f.read()
    for name in CONTROL_PLANE:
        with open(os.path.realpath(os.path.join(tools_bin, name)), "rb") as f:
            files["usr/local/bin/" + name] = f.read()
    with open(BUSYBOX, "rb") as f:
        files["bin/busybox"] = f.read()
    with tarfile.open(fileobj=buf, mode="w", format=tarfile.GNU_FORMAT) as tar:
        dirs = set()
        for path in files:
            parts = path.split("/")[:-1]
            for i in range(1, len(parts) + 1):
                dirs.add("/".join(parts[:i]))
        for d in ["etc", "tmp", "var", "var/run"]:
            dirs.add(d)
        # The root itself: without an entry containerd makes it 0700, and the
        # StatefulSet's non-root containers could not reach anything.
        add_entry(tar, ".", "dir")
        for d in sorted(dirs):
            add_entry(tar, d, "dir", mode=0o1777 if d == "tmp" else 0o755)
        for path in sorted(files):
            executable = path.startswith("usr/local/bin/") or path == "bin/busybox" or "ld-linux" in path
            add_entry(tar, path, "file", files[path], mode=0o755 if executable else 0o644)
        add_entry(tar, "bin/sh", "link", target="busybox")
        add_entry(tar, "etc/passwd", "file", b"root:x:0:0:root:/root:/bin/sh\n"
                  b"nonroot:x:65532:65532:nonroot:/home/nonroot:/bin/false\n", mode=0o644)
        add_entry(tar, "etc/group", "file", b"root:x:0:\nnonroot:x:65532:\n", mode=0o644)
    return buf.getvalue()


def image_tarball(path, repo_tag, layer, config):
    layer_digest = hashlib.sha256(layer).hexdigest()
    config = dict(config)
    config.update({"architecture": "amd64", "os": "linux",
                   "rootfs": {"type": "layers", "diff_ids": ["sha256:" + layer_digest]}})
    config_bytes = json.dumps(config, sort_keys=True, separators=(",", ":")).encode()
    config_digest = hashlib.sha256(config_bytes).hexdigest()
    repo_tags = repo_tag if isinstance(repo_tag, list) else [repo_tag]
    manifest = [{"Config": config_digest + ".json", "RepoTags": repo_tags,
                 "Layers": [layer_digest + "/layer.tar"]}]
    tmp = path + ".tmp"
    with tarfile.open(tmp, mode="w", format=tarfile.USTAR_FORMAT) as tar:
        add_entry(tar, layer_digest, "dir")
        add_entry(tar, layer_digest + "/layer.tar", "file", layer, mode=0o644)
        add_entry(tar, config_digest + ".json", "file", config_bytes, mode=0o644)
        add_entry(tar, "manifest.json", "file", json.dumps(manifest).encode(), mode=0o644)
    os.replace(tmp, path)
    return config_digest


def build_programs_image(out, build_dir, tools_bin):
    layer = programs_layer(build_dir, tools_bin)
    kubernetes = version_of(os.path.join(tools_bin, "kube-apiserver"), "--version", "Kubernetes ")
    etcd = version_of(os.path.join(tools_bin, "etcd"), "--version", "etcd Version: ")
    tags = ["localhost/vtenant/vtenant:" + hashlib.sha256(layer).hexdigest()[:12],
            "localhost/vtenant/kube-apiserver:" + kubernetes,
            "localhost/vtenant/kube-controller-manager:" + kubernetes,
            "localhost/vtenant/etcd:" + etcd]
    path = os.path.join(out, "programs.tar")
    digest = image_tarball(path, tags, layer, {"Env": [PATH_ENV], "Cmd": ["sh"]})
    with open(os.path.join(out, "programs.ref"), "w") as f:
        f.write("\n".join(tags) + "\n")
    print("build-images: %s (sha256:%s, %d MB) -> %s"
          % (", ".join(tags), digest[:12], len(layer) // (1 << 20), path))


def main():
    args = sys.argv[1:]
    programs = None
    if len(args) == 4 and args[1] == "--programs":
        programs = (args[2], args[3])
        args = args[:1]
    if len(args) != 1:
        sys.exit("usage: hack/build-images.py OUT_DIR [--programs BUILD_DIR TOOLS_BIN]")
    out = args[0]
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
    if programs:
        build_programs_image(out, *programs)


if __name__ == "__main__":
    main()
