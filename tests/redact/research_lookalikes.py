"""Research data that looks like the shapes this round's rules replace, and holds no secret.

Why a list of its own: the users are researchers sharing sessions full of tables, SQL,
hexdumps, tensors, benchmark output and configs. The rules for database rows, name/value
pairs, PINs, recovery phrases, byte lists, password hashes and password flags were
written against attacks; each line here is what a coding agent's tool output or a
notebook prints, placed where the other look-alike lists are placed.
"""

# ruff: noqa: E501  (lines are written as tools print them)
from __future__ import annotations

import hashlib


def _hexdump(data: bytes) -> str:
    """``hexdump -C`` of ``data``."""
    rows = []
    for at in range(0, len(data), 16):
        chunk = data[at : at + 16]
        left = " ".join(f"{b:02x}" for b in chunk[:8])
        right = " ".join(f"{b:02x}" for b in chunk[8:])
        shown = "".join(chr(b) if 32 <= b < 127 else "." for b in chunk)
        rows.append(f"{at:08x}  {left:<23}  {right:<23}  |{shown}|")
    rows.append(f"{len(data):08x}")
    return "\n".join(rows)


def _od_c(data: bytes) -> str:
    """``od -c`` of ``data``."""
    rows = []
    for at in range(0, len(data), 16):
        cells = []
        for b in data[at : at + 16]:
            c = chr(b)
            cells.append(
                {"\n": "\\n", "\t": "\\t", "\0": "\\0"}.get(c, c if 32 <= b < 127 else f"{b:03o}")
            )
        rows.append(f"{at:07o}" + "".join(f"{c:>4}" for c in cells))
    rows.append(f"{len(data):07o}")
    return "\n".join(rows)


_ELF = bytes.fromhex(
    "7f454c4602010100000000000000000003003e0001000000a0100000000000004000000000000000"
)
_README = b"Install with pip, then run the tests.\n"
_DIGEST = hashlib.sha256(b"model.safetensors").digest()

#: research data and config that must stay as written, by family
FAMILIES: dict[str, list[str]] = {
    "tables": [  # psql / mysql tables whose columns name a secret word, cells plainly not secrets
        " id | token_count | created_at\n----+-------------+------------\n  1 |        1532 | 2024-11-02\n  2 |         817 | 2024-11-03\n(2 rows)",
        " id | api_key_id | name\n----+------------+---------\n  7 |         42 | ci-bot\n  8 |       NULL | staging\n(2 rows)",
        " user_id | secret_santa | budget\n---------+--------------+--------\n      12 | alice        |     25\n      13 | bob          |     25\n(2 rows)",
        " id | email             | password_reset_at\n----+-------------------+---------------------\n  3 | ana@example.org   | 2024-10-01 09:12:44\n  4 | li@example.org    | NULL\n(2 rows)",
        "+----+-------------+------------+\n| id | token_count | model      |\n+----+-------------+------------+\n|  1 |       40960 | llama-3-8b |\n|  2 |        8192 | mistral-7b |\n+----+-------------+------------+\n2 rows in set (0.00 sec)",
        "+----+--------------------------------------+--------+\n| id | api_key_id                           | status |\n+----+--------------------------------------+--------+\n|  1 | 6f1c2d3e-4b5a-4c7d-8e9f-0a1b2c3d4e5f | active |\n+----+--------------------------------------+--------+\n1 row in set (0.01 sec)",
        " run | secret | passed\n-----+--------+--------\n   1 | no     | t\n   2 | yes    | f\n(2 rows)",
        " id | token                                | used\n----+--------------------------------------+------\n  1 | 0b9e7d5a-2c4f-4e8a-9b1d-3f6a8c0e2d4b | t\n(1 row)",
        " key           | value\n---------------+-------\n learning_rate | 3e-4\n max_tokens    | 4096\n theme         | dark\n(3 rows)",
        "mysql> SHOW VARIABLES LIKE 'validate_password%';\n+--------------------------------------+--------+\n| Variable_name                        | Value  |\n+--------------------------------------+--------+\n| validate_password.length             | 8      |\n| validate_password.policy             | MEDIUM |\n+--------------------------------------+--------+",
        " id | session_token_hash | expires_at\n----+--------------------+---------------------\n  9 | NULL               | 2025-01-01 00:00:00\n(1 row)",
        " id | cookie_consent | secret_level\n----+----------------+--------------\n  1 | accepted       | low\n  2 | rejected       | high\n(2 rows)",
        " id | name       | api_key_prefix | created_at\n----+------------+----------------+------------\n  1 | prod       | sk-live        | 2024-02-01\n(1 row)",
    ],
    "inserts": [  # INSERTs of config rows
        "INSERT INTO settings (name, value) VALUES ('max_tokens', '4096');",
        "INSERT INTO experiments (id, seed, token_budget) VALUES (17, 1234, 200000);",
        "INSERT INTO api_keys (id, user_id, created_at, revoked_at) VALUES (3, 12, '2024-11-02', NULL);",
        "INSERT INTO users (id, name, password_hash) VALUES (5, 'demo', NULL);",
        "INSERT INTO config (key, value) VALUES ('theme', 'dark'), ('lang', 'en');",
        "INSERT INTO tokenizer_runs (id, token_count, vocab, tokens_per_second) VALUES (4, 50257, 'gpt2', 1532.4);",
        "INSERT INTO sessions (id, session_token, user_id) VALUES (1, '7d0f4a2e-5b1c-4e9a-8f3d-2c6b9e1a0f7d', 42);",
        "INSERT INTO feature_flags (name, enabled, secret_menu) VALUES ('dark_mode', true, false);",
    ],
    "name-value": [  # YAML name/value pairs of ordinary settings and references
        'env:\n  - name: OMP_NUM_THREADS\n    value: "8"\n  - name: WANDB_MODE\n    value: offline',
        "env:\n  - name: DB_PASSWORD\n    valueFrom:\n      secretKeyRef:\n        name: db-credentials\n        key: password",
        "- name: API_TOKEN\n  valueFrom:\n    secretKeyRef: {name: api-secrets, key: token}",
        '- name: CUDA_VISIBLE_DEVICES\n  value: "0,1"',
        "- name: HF_HOME\n  value: /scratch/cache/huggingface",
        "parameters:\n  - name: learning_rate\n    value: 0.0003\n  - name: batch_size\n    value: 64",
        "- name: SECRET_NAME\n  value: prod-db-creds",
        '- name: PASSWORD_MIN_LENGTH\n  value: "12"',
        "- name: AUTH_PROVIDER\n  value: github",
        "- name: GIT_SHA\n  value: 3f9a1c2e8b7d4f6a0e5c9b1d2a7e8f3c4b5a6d7e",
        '- name: NVIDIA_VISIBLE_DEVICES\n  value: all\n- name: TOKENIZERS_PARALLELISM\n  value: "false"',
    ],
    "har-headers": [  # HAR headers that are not secrets
        '{"name": "content-type", "value": "application/json; charset=utf-8"}',
        '{"name": "user-agent", "value": "Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/126.0 Safari/537.36"}',
        '{"name": "etag", "value": "W/\\"5e8f-1a2b3c4d5e6f7a8b\\""}',
        '{"name": "x-request-id", "value": "9f1c2b3a-4d5e-4f6a-8b7c-0d1e2f3a4b5c"}',
        '"headers": [{"name": "accept", "value": "*/*"}, {"name": "cache-control", "value": "no-cache"}]',
        '{"name": "set-cookie", "value": "theme=dark; Path=/; SameSite=Lax"}',
        '{"name": "authorization", "value": "Bearer <redacted>"}',
        '{"name": "x-amz-cf-id", "value": "kq9ZPc2nBnVfVJmxTR2kxk3Nd6vYq3XmcvU5G0Xv3C8r6E9o5Q=="}',
        '{"name": "if-none-match", "value": "\\"33a64df551425fcc55e4d42a148795d9f25f89d4\\""}',
        '{"name": "x-ratelimit-remaining-tokens", "value": "79820"}',
        '{"name": "cf-ray", "value": "8c1f2a3b4d5e6f70-AMS"}',
        '{"name": "x-cache-key", "value": "v1:gpt-4o:temperature=0.2"}',
    ],
    "hexdump-od": [  # hexdumps and od of binaries and of text without secrets
        "$ hexdump -C build/a.out | head -3\n" + _hexdump(_ELF),
        "$ hexdump -C README.txt\n" + _hexdump(_README),
        "$ od -c README.txt\n" + _od_c(_README),
        '$ xxd -l 32 model.bin\n00000000: 9310 0000 0000 0000 7b22 5f5f 6d65 7461  ........{"__meta\n00000010: 6461 7461 5f5f 223a 7b22 666f 726d 6174  data__":{"format',
        "$ od -An -tx1 weights.bin | head -2\n 93 10 00 00 00 00 00 00 7b 22 5f 5f 6d 65 74 61\n 64 61 74 61 5f 5f 22 3a 7b 22 66 6f 72 6d 61 74",
    ],
    "byte-lists": [  # byte lists of digests, tensors
        "sha256 digest bytes: " + str(list(_DIGEST)),
        "assert digest == " + str(list(hashlib.md5(b"fixture").digest())),
        "tensor([[ 12,  87, 143, 201,  33,  95, 250,  14],\n        [ 66, 190,   3, 177, 128,  45, 219,  81]], dtype=torch.uint8)",
        "array([ 17,  83, 142, 201,  34,  96, 251,  15, 67, 191,   4, 178, 129,  46, 220,  82], dtype=uint8)",
        "pixels[0] = [" + ", ".join(str(i * 71 % 256) for i in range(48)) + "]",
        "tokens = [" + ", ".join(str(i * 977 % 50257) for i in range(40)) + "]",
        'In [3]: list(hashlib.sha256(b"abc").digest())[:8]\nOut[3]: [186, 120, 22, 191, 143, 1, 207, 234]',
        ">>> tokenizer(\"hello world\")\n{'input_ids': [101, 7592, 2088, 102], 'token_type_ids': [0, 0, 0, 0], 'attention_mask': [1, 1, 1, 1]}",
        "token_ids = torch.tensor([[50256, 464, 2068, 7586, 21831, 18045, 625, 262, 16931, 3290, 13, 50256]])",
    ],
    "pins": [  # GPIO and hardware numbers, version pins, pin_memory
        "GPIO pin: 1234",
        "led_pin = 17  # BCM numbering",
        "Pin 4821 of the FPGA bank is the clock input.",
        "DataLoader(train_set, batch_size=64, shuffle=True, pin_memory=True, num_workers=8)",
        "pin: 3.11",
        "python:\n  pin: 3.11.9\nnumpy:\n  pin: 1.26.4",
        "pins:\n  sda: 2\n  scl: 3\n  reset: 1017",
        "cvv_length: 3",
        "pin_length = 6  # digits in the one-time code",
        '"pin": 1',
        "pin_memory_device: cuda:0",
        "seed: 1234\nmnemonic: false",
        '[tool.poetry.dependencies]\npython = "^3.11"\ntorch = {version = "2.4.1", source = "pytorch"}',
        "transaction_pin_length: 6",
        '"pin_count": 40, "pin_pitch_mm": 2.54',
    ],
    "recovery-prose": [  # recovery-phrase prose
        "A seed phrase (or recovery phrase) is a list of 12 or 24 words that a wallet uses to derive its keys; never share it.",
        "## Recovery phrase\n\nWrite the 24 words on paper and keep them offline. The phrase restores the wallet on a new device.",
        "mnemonic: the BIP-39 word list has 2048 words; each word encodes 11 bits",
        "Seed phrase: never type it into a website. Hardware wallets show it once.",
    ],
    "hash-formats": [  # password hashes' format descriptions
        "Django stores passwords as pbkdf2_sha256$<iterations>$<salt>$<hash>.",
        "The format is $argon2id$v=19$m=65536,t=3,p=4$<salt>$<hash> (base64 without padding).",
        "bcrypt hashes look like $2b$12$<22-char salt><31-char hash>.",
        "PASSWORD_HASHERS = ['django.contrib.auth.hashers.PBKDF2PasswordHasher']",
        "password_hash: NULL",
        "weights sha256: 9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08",
    ],
    "password-flags": [  # command lines whose password flag takes a reference, not a password
        "docker login -u ci --password-stdin < token.txt",
        "openssl pkcs12 -export -in cert.pem -inkey key.pem -out cert.p12 -passout env:P12_PASS",
        "openssl enc -aes-256-cbc -in data.tar -out data.enc -pass file:/run/secrets/enc_pass",
        "keytool -importcert -keystore truststore.jks -storepass:env STORE_PASS -file ca.pem",
        "sshpass -e ssh ci@build-01 uptime",
        "mysql -u analyst -p$MYSQL_PWD -h db.internal research",
        'mongosh "mongodb://db:27017/lab" -u reader -p "$MONGO_PASS"',
        "psexec \\\\lab-07 -u ci -p *** cmd",
        'zip -P "$ZIP_PASS" results.zip results/*.csv',
        "apksigner sign --ks app.jks --ks-pass stdin app.apk",
        "htpasswd -B -C 12 .htpasswd alice",
        "$ vault kv get -field=password secret/db\nError reading secret/db: permission denied",
        'PGPASSWORD="$(cat /run/secrets/pg)" psql -h db -U analyst lab',
        'ldapsearch -x -D "cn=reader,dc=lab" -y /run/secrets/ldap_pw -b "dc=lab"',
        "smbclient //nas/share -U analyst --password-from-file=/run/secrets/smb",
        'sqlcmd -S db -U sa -P "$SA_PASSWORD" -Q "SELECT 1"',
        'mongodump --uri "$MONGO_URI" --out /backup/2024-11-02',
        '$ htpasswd -nbB user "$(cat pw.txt)"',
    ],
    "benchmarks": [  # benchmark output and metrics
        "| model | tokens/s | p50 ms | p99 ms |\n|-------|----------|--------|--------|\n| base  |  1532.4  |  12.1  |  40.8  |",
        "epoch 3 | loss 0.4817 | acc 0.8735 | tokens 1048576 | lr 3.0e-04",
        "| step | loss   | tokens_seen | grad_norm |\n|------|--------|-------------|-----------|\n| 100  | 2.1043 | 409600      | 0.88      |",
    ],
}
#: every family's look-alikes, in order
LOOKALIKES_RESEARCH: list[str] = [text for texts in FAMILIES.values() for text in texts]
