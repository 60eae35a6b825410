#!/usr/bin/env python3
"""Print ROUTES exactly as infra/ renders it for the default `routes` variable (optional fields left out,
as locals.tf does), so the packaged `attestgate config check` can judge what Terraform would deploy."""

import json
import pathlib
import sys

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))
import tfload  # noqa: E402

routes = tfload.named_blocks(tfload.load(), "variable")["routes"]["default"]
rendered = [{k: tfload.unquote(v) for k, v in route.items() if v is not None} for route in routes]
print(json.dumps(rendered, separators=(",", ":")))
