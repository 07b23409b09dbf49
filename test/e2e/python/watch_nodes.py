"""Watches Nodes with Debian's python3-kubernetes Watch.stream and prints one JSON line per event.

Usage: watch_nodes.py KUBECONFIG COUNT

Exits once COUNT distinct Nodes have been seen ADDED. The client is configured as a long-running
consumer would be: urllib3 retries connecting (with backoff) while the server is away. Watch.stream
itself re-opens the watch from the last resourceVersion it saw whenever a stream ends.
"""
import json
import sys

import urllib3
from kubernetes import client, config, watch


def main() -> int:
    kubeconfig, count = sys.argv[1], int(sys.argv[2])
    config.load_kube_config(config_file=kubeconfig)
    configuration = client.Configuration.get_default_copy()
    configuration.retries = urllib3.util.Retry(
        total=100, connect=100, read=5, backoff_factor=0.1, allowed_methods=None
    )
    api = client.CoreV1Api(client.ApiClient(configuration))
    seen = set()
    w = watch.Watch()
    for event in w.stream(api.list_node):
        node = event["object"]
        line = {
            "type": event["type"],
            "name": node.metadata.name,
            "resourceVersion": node.metadata.resource_version,
        }
        print(json.dumps(line), flush=True)
        if event["type"] == "ADDED":
            seen.add(node.metadata.name)
        if len(seen) >= count:
            w.stop()
    return 0


if __name__ == "__main__":
    sys.exit(main())
