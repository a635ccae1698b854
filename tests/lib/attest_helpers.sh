# Sourced by the suites that read trueline's attestations (attest, pytorch_extension): Python reads the
# statements, sha256sum and PyPI's securesystemslib are the oracles.
# payload FILE.intoto.jsonl > statement.json: the first envelope's statement, decoded by Python
payload() { python3 -c 'import json,base64,sys; sys.stdout.buffer.write(base64.b64decode(json.loads(open(sys.argv[1]).readline())["payload"]))' "$1"; }
# jq-like query over a statement with Python: q FILE EXPR (st = the statement)
q() { python3 -c 'import json,sys; st=json.load(open(sys.argv[1])); print(eval(sys.argv[2]))' "$1" "$2"; }
sha() { sha256sum "$1" | cut -d' ' -f1; }
# sslib_python DIR: prints a python that imports securesystemslib and cryptography: python3 when it does, else
# one of a virtual environment made in DIR with both from PyPI; prints nothing when neither works.
sslib_python() {
  if python3 -c 'import securesystemslib.dsse, cryptography' 2>/dev/null; then echo python3
  elif python3 -m venv "$1" > /dev/null 2>&1 && timeout 300 "$1/bin/pip" install -q securesystemslib cryptography > "$1.pip.log" 2>&1; then
    echo "$1/bin/python"
  fi
}
