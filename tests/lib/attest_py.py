#!/usr/bin/env python3
"""attest_py.py: the independent side of the attest suite, with PyPI's securesystemslib (DSSE, Ed25519 keys).

  attest_py.py verify ENVELOPE.intoto.jsonl KEY.pub [ARTIFACT...]
      verifies the first envelope's signature with securesystemslib and, for each ARTIFACT, that the statement
      names it with the sha256 hashlib computes; prints 'verified' (exit 0) or the reason (exit 1)
  attest_py.py sign STATEMENT.json KEY OUT.intoto.jsonl
      signs STATEMENT.json's bytes in a DSSE envelope with the secret key file (securesystemslib's signer)
  attest_py.py keyid KEY.pub
      prints securesystemslib's keyid of the public key (its own canonical-JSON rule)"""
import hashlib
import json
import os
import sys

from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey
from securesystemslib.dsse import Envelope
from securesystemslib.signer import CryptoSigner, SSlibKey
from securesystemslib.signer._key import compute_default_keyid

PAYLOAD_TYPE = 'application/vnd.in-toto+json'


def public_key(path):
    d = json.load(open(path))
    parts = {k: d[k] for k in ('keytype', 'scheme')}
    parts['keyval'] = {'public': d['keyval']['public']}
    keyid = compute_default_keyid(parts['keytype'], parts['scheme'], parts['keyval'])
    return SSlibKey.from_dict(keyid, parts)


def main(argv):
    if argv[1] == 'keyid':
        print(public_key(argv[2]).keyid)
        return 0
    if argv[1] == 'sign':
        d = json.load(open(argv[3]))
        seed = bytes.fromhex(d['keyval']['private'])
        signer = CryptoSigner(Ed25519PrivateKey.from_private_bytes(seed), public_key(argv[3]))
        env = Envelope(open(argv[2], 'rb').read(), PAYLOAD_TYPE, {})
        env.sign(signer)
        with open(argv[4], 'w') as f:
            f.write(json.dumps(env.to_dict()) + '\n')
        return 0
    env = Envelope.from_dict(json.loads(open(argv[2]).readline()))
    key = public_key(argv[3])
    try:
        env.verify([key], 1)
    except Exception as e:  # VerificationError and what a malformed signature raises
        print(f'signature: {type(e).__name__}: {e}')
        return 1
    if env.payload_type != PAYLOAD_TYPE:
        print(f'payloadType {env.payload_type}')
        return 1
    st = json.loads(env.payload)
    subjects = {s['name']: s['digest']['sha256'] for s in st['subject']}
    for a in argv[4:]:
        want = hashlib.sha256(open(a, 'rb').read()).hexdigest()
        if subjects.get(os.path.basename(a)) != want:
            print(f'{a}: sha256 {want} is not the statement\'s {subjects.get(os.path.basename(a))}')
            return 1
    print('verified')
    return 0


if __name__ == '__main__':
    sys.exit(main(sys.argv))
