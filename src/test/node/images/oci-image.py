#!/usr/bin/env python3
"""Writes a one-layer OCI image archive (an OCI image layout in a tar) from a gzipped layer.

    oci-image.py LAYER.tar.gz DIFF_ID NAME:TAG OUT.tar [--env K=V]... [--entrypoint JSON] [--user U]
                 [--workdir DIR] [--layout DIR]

The archive carries both annotations `ctr images import` and BuildKit's oci-layout contexts read
(io.containerd.image.name, org.opencontainers.image.ref.name). With --layout, the image layout is
also kept unpacked in DIR (for `buildctl --oci-layout`). Prints the manifest's digest.
"""
import argparse, hashlib, io, json, os, shutil, tarfile

p = argparse.ArgumentParser()
p.add_argument("layer"); p.add_argument("diff_id"); p.add_argument("name"); p.add_argument("out")
p.add_argument("--env", action="append", default=[]); p.add_argument("--entrypoint")
p.add_argument("--cmd"); p.add_argument("--user"); p.add_argument("--workdir"); p.add_argument("--layout")
a = p.parse_args()

def sha256_file(path):
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for chunk in iter(lambda: f.read(1 << 20), b""):
            h.update(chunk)
    return h.hexdigest()

blobs = {}  # digest hex -> bytes or path
layer_digest = sha256_file(a.layer)
blobs[layer_digest] = a.layer
config = {"architecture": "amd64", "os": "linux",
          "config": {"Env": a.env or ["PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"]},
          "rootfs": {"type": "layers", "diff_ids": ["sha256:" + a.diff_id]},
          "history": [{"created_by": "steward src/test/node/images/build.sh"}]}
if a.entrypoint: config["config"]["Entrypoint"] = json.loads(a.entrypoint)
if a.cmd: config["config"]["Cmd"] = json.loads(a.cmd)
if a.user: config["config"]["User"] = a.user
if a.workdir: config["config"]["WorkingDir"] = a.workdir
def add_json(obj):
    data = json.dumps(obj, separators=(",", ":"), sort_keys=True).encode()
    d = hashlib.sha256(data).hexdigest(); blobs[d] = data; return d, len(data)
cfg_digest, cfg_size = add_json(config)
manifest = {"schemaVersion": 2, "mediaType": "application/vnd.oci.image.manifest.v1+json",
            "config": {"mediaType": "application/vnd.oci.image.config.v1+json",
                       "digest": "sha256:" + cfg_digest, "size": cfg_size},
            "layers": [{"mediaType": "application/vnd.oci.image.layer.v1.tar+gzip",
                        "digest": "sha256:" + layer_digest, "size": os.path.getsize(a.layer)}]}
man_digest, man_size = add_json(manifest)
tag = a.name.rsplit(":", 1)[1]
index = {"schemaVersion": 2, "mediaType": "application/vnd.oci.image.index.v1+json",
         "manifests": [{"mediaType": "application/vnd.oci.image.manifest.v1+json",
                        "digest": "sha256:" + man_digest, "size": man_size,
                        "platform": {"architecture": "amd64", "os": "linux"},
                        "annotations": {"io.containerd.image.name": a.name,
                                        "org.opencontainers.image.ref.name": tag}}]}
files = {"oci-layout": json.dumps({"imageLayoutVersion": "1.0.0"}).encode(),
         "index.json": json.dumps(index).encode()}

def entries():
    for name, data in files.items():
        yield name, data
    for d, v in blobs.items():
        yield "blobs/sha256/" + d, v

with tarfile.open(a.out + ".tmp", "w") as t:
    for name, v in entries():
        if isinstance(v, bytes):
            info = tarfile.TarInfo(name); info.size = len(v); info.mode = 0o644
            t.addfile(info, io.BytesIO(v))
        else:
            t.add(v, arcname=name)
os.replace(a.out + ".tmp", a.out)
if a.layout:
    shutil.rmtree(a.layout, ignore_errors=True)
    os.makedirs(a.layout + "/blobs/sha256")
    for name, v in entries():
        if isinstance(v, bytes):
            with open(os.path.join(a.layout, name), "wb") as f: f.write(v)
        else:
            os.link(v, os.path.join(a.layout, name)) if os.stat(v).st_dev == os.stat(a.layout).st_dev else shutil.copy(v, os.path.join(a.layout, name))
print("sha256:" + man_digest)
