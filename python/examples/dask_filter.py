"""Filter a document collection with qrtl on a Dask LocalCluster of processes.

    python dask_filter.py QUERIES DOC... [--workers N] [--partitions P]

prints one JSON line per document, in input order, exactly as
`qrtl xpath filter QUERIES DOC...` does (`doc`, `status`, `matched`), and
the documents, bytes and seconds on stderr.

How: the query file is compiled once per worker process, by a worker plugin
(an XPathFilter cannot be pickled, so each worker builds its own from the
query text); the documents' paths travel in partitions of a dask.bag, each
partition filtered by its worker's filter with `filter_many`; a bag keeps
its order, so `compute()` gives the results in input order. Workers read
the documents themselves: only paths and small results cross processes.
"""

import argparse
import json
import pathlib
import sys
import time

import dask.bag as db
from dask.distributed import Client, LocalCluster, WorkerPlugin, get_worker

import qrtl

PLUGIN = "qrtl-xpath-filter"


class XPathFilterPlugin(WorkerPlugin):
    """Builds one qrtl.XPathFilter per worker, from the query text."""

    name = PLUGIN

    def __init__(self, queries: str, **options):
        self.queries, self.options, self.filter = queries, options, None

    def setup(self, worker):
        self.filter = qrtl.XPathFilter(self.queries, **self.options)


def filter_partition(paths):
    """One partition on its worker: `qrtl xpath filter`'s fields per document."""
    f = get_worker().plugins[PLUGIN].filter
    return [
        {"doc": r.doc, "status": r.status, "matched": r.matched}
        for r in f.filter_many(paths, jobs=1)
    ]


def filter_collection(client, queries: str, docs, partitions: int, **options):
    """Results of every document in `docs` (paths), in input order."""
    client.register_plugin(XPathFilterPlugin(queries, **options))
    bag = db.from_sequence([str(d) for d in docs], npartitions=partitions)
    return bag.map_partitions(filter_partition).compute()


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("queries", type=pathlib.Path)
    ap.add_argument("docs", nargs="+", type=pathlib.Path)
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument("--partitions", type=int, help="default: 4 per worker")
    ap.add_argument("--mode", default="holistic", choices=["holistic", "paths", "pairs"])
    ap.add_argument("--repeat", type=int, default=1, help="filter the documents R times (benchmarks)")
    args = ap.parse_args(argv)
    args.docs = args.docs * args.repeat
    queries = args.queries.read_text()
    qrtl.XPathFilter(queries, mode=args.mode)  # query errors here, before any worker starts
    partitions = min(len(args.docs), args.partitions or 4 * args.workers)
    with LocalCluster(n_workers=args.workers, threads_per_worker=1, processes=True,
                      dashboard_address=None) as cluster, Client(cluster) as client:
        start = time.perf_counter()
        results = filter_collection(client, queries, args.docs, partitions, mode=args.mode)
        seconds = time.perf_counter() - start
    for r in results:
        print(json.dumps(r, separators=(",", ":")))
    size = sum(d.stat().st_size for d in args.docs)
    print(f"{len(results)} documents, {size} bytes, {seconds:.2f} s on {args.workers} workers",
          file=sys.stderr)


if __name__ == "__main__":
    main()
