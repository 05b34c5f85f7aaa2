"""The process's engines, opened lazily and reopened after failures.

Each back end (vector slice, graph slice, embedder) is built by its factory on first use. If that
fails (an engine down, the embedded Qdrant store held by another pegas-memory process), the error
is remembered for a short while and raised as BackendUnavailable, and the next use after that
tries again: a server outlives the outages of what it talks to.

`ProjectionRuntime` also runs the embedded outbox worker in a thread when the settings say the
server drains the outbox itself (the embedded default); that thread also runs the slices'
self-check (`outbox.selfcheck`) at start and periodically, rebuilding a damaged slice.
"""

from __future__ import annotations

import logging
import threading
import time

import pegas_memory.host.client as host_client
from pegas_memory.config import Settings
from pegas_memory.db.pool import Database
from pegas_memory.embedding import CachedEmbedder, build_embedder
from pegas_memory.errors import BackendUnavailable, PegasMemoryError
from pegas_memory.lazy import RETRY_AFTER_SECONDS, Lazy
from pegas_memory.memgraph_store import GraphStore, build_graph_store
from pegas_memory.outbox.direct import DirectProjector
from pegas_memory.outbox.projection import Projector, Target
from pegas_memory.outbox.selfcheck import SliceMonitor
from pegas_memory.outbox.worker import OutboxWorker
from pegas_memory.qdrant_store import VectorIndex, build_vector_index
from pegas_memory.qdrant_store.index import VECTOR_ENTITIES
from pegas_memory.vocabulary import LexicalEngine

log = logging.getLogger(__name__)

HOST_WAIT_SLICE_SECONDS = 0.1  # the background threads' waits for the engine host, stop-aware
OUTBOX_CHANNEL = "pm_outbox"  # what the worker LISTENs on (migrations/0001's trigger)
PREWARM_JOIN_SECONDS = 0.25  # a close waits this long for the warm-up thread, then goes on


class ProjectionRuntime:
    """Vector slice, graph slice, embedder, projector and (optionally) the embedded worker."""

    def __init__(self, settings: Settings, db: Database):
        self.settings = settings
        self.db = db
        self.vectors: Lazy[VectorIndex] = Lazy("vector slice", lambda: build_vector_index(settings))
        self.graph: Lazy[GraphStore] = Lazy("graph slice", lambda: build_graph_store(settings))
        self.embedder: Lazy[CachedEmbedder] = Lazy(
            "embedder", lambda: CachedEmbedder(build_embedder(settings), db)
        )
        targets: tuple[Target, ...] = ("vector", "graph")
        self.projector = Projector(
            targets=targets,
            vectors=self.vectors.get,
            graph=self.graph.get,
            embedder=self.embedder.get,
            collection_prefix=settings.qdrant_collection_prefix,
            sparse=settings.lexical_engine == LexicalEngine.SPARSE,
        )
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        self._monitor: threading.Thread | None = None
        self._optimized_at: dict[str, int] = {}
        self._prewarm: threading.Thread | None = None
        self.monitor = SliceMonitor(self)

    def prune_orphans(self) -> None:
        """Stop the embedded graph server if every process that used it died without releasing
        it (kill -9): a session that never touches the graph must not leave it running."""
        if not self.settings.graph_embedded:
            return
        from pegas_memory.memgraph_store.falkor import prune_orphan_server

        try:
            prune_orphan_server(self.settings.data_dir)
        except PegasMemoryError as exc:
            log.warning("could not check the embedded graph server for dead users: %s", exc)

    def worker(self, name: str = "worker") -> OutboxWorker:
        return OutboxWorker(self.settings, self.db, self.projector, name=name)

    def direct(self) -> DirectProjector:
        """The outbox steps for a writer projecting its own events (`outbox.direct`)."""
        return DirectProjector(self.settings, self.db, self.projector, name="direct")

    def optimize_if_grown(self, *, min_growth: float = 0.2) -> list[str]:
        """Build the vector index of collections that grew by `min_growth` since the last build
        and exceed the exact-search limit (below it, searches are exact anyway). Holds the
        embedded engine while it runs: for the standalone worker's idle time, not the server."""
        built: list[str] = []
        try:
            index = self.vectors.get()
        except BackendUnavailable:
            return built
        for entity in VECTOR_ENTITIES:
            name = self.projector.collection(entity)
            count = index.count(name)
            last = self._optimized_at.get(name, 0)
            if count > self.settings.vector_exact_limit and count > last * (1 + min_growth):
                log.info("building the vector index of %s (%d points)", name, count)
                index.optimize(name)
                self._optimized_at[name] = count
                built.append(name)
        return built

    # ------------------------------------------------------------------ the engine host
    @property
    def uses_host(self) -> bool:
        """Whether the vector slice or the embedder is served by the data dir's engine host."""
        return self.settings.shares_vectors or self.settings.shares_embedder

    def prewarm(self, *, engines: bool = False) -> None:
        """Begin reaching (or starting) the engine host now, in the background, so the first
        call that needs it rarely waits. Returns at once; does nothing without the host.

        With `engines` (serve, at startup) a thread also opens the graph slice and, once the
        host serves, creates the vector collections: a FalkorDB start or a new collection
        costs seconds on a busy machine, which the first search or stats would otherwise pay
        within its time limit."""
        if engines and self._prewarm is None:
            self._prewarm = threading.Thread(
                target=self._warm_engines, name="pegas-prewarm", daemon=True
            )
            self._prewarm.start()
        for lazy, shared in (
            (self.vectors, self.settings.shares_vectors),
            (self.embedder, self.settings.shares_embedder),
        ):
            if shared:
                try:
                    lazy.get()
                except BackendUnavailable as exc:  # reported again by the call that needs it
                    log.warning("could not prepare %s: %s", lazy.name, exc)

    def _warm_engines(self) -> None:
        if self._stop.is_set():
            return
        try:
            self.graph.get()
        except BackendUnavailable as exc:  # the first call that needs it retries and reports
            log.info("the graph slice is not ready yet: %s", exc)
        if not self.settings.shares_vectors:
            return  # in-process or server vectors: opened by the worker, as before
        deadline = time.monotonic() + self.settings.host_start_timeout
        while not self.wait_for_host(0.5, stop=self._stop):
            if self._stop.is_set() or time.monotonic() > deadline:
                return
        for entity in VECTOR_ENTITIES:
            try:
                self.projector.collection(entity)
            except PegasMemoryError as exc:  # the first call that needs it reports it
                log.info("could not create the %s collection yet: %s", entity, exc)
                return

    def host_starting(self) -> str | None:
        """Why the engine host does not serve yet (it is starting), or None when it serves or
        is not used. Never waits beyond a just-opened client's half-second to connect."""
        if not self.uses_host:
            return None
        self.prewarm()
        client = host_client.current(self.settings)
        if client is None or client.settled():
            return None
        return client.state()

    def wait_for_host(self, timeout: float, *, stop: threading.Event | None = None) -> bool:
        """Wait up to `timeout` seconds for the engine host to serve (True at once without it).
        With `stop`, in slices that end the wait (False) as soon as it is set: a thread that
        waits for a starting host must not hold up a close (SIGTERM during the host's start
        spent a second joining the worker, measured)."""
        if not self.uses_host:
            return True
        self.prewarm()
        client = host_client.current(self.settings)
        if client is None:
            return True
        if stop is None:
            return client.wait_ready(timeout)
        deadline = time.monotonic() + timeout
        while not stop.is_set():
            left = deadline - time.monotonic()
            if client.wait_ready(min(HOST_WAIT_SLICE_SECONDS, max(0.0, left))):
                return True
            if left <= 0:
                return False
        return False

    # ------------------------------------------------------------------ embedded worker
    def start_worker_thread(self) -> None:
        """Drain the outbox in the background of this process (embedded default)."""
        if self._thread is not None:
            return
        self._stop.clear()
        self._thread = threading.Thread(target=self._worker_loop, name="pegas-outbox", daemon=True)
        self._thread.start()
        # The self-check has a thread of its own: between the worker's drains it could run only
        # once per LISTEN timeout, which put a deleted collection's repair seconds late.
        self._monitor = threading.Thread(
            target=self.monitor.run,
            args=(self._stop,),
            kwargs={"active": lambda: self.projecting_here},
            name="pegas-selfcheck",
            daemon=True,
        )
        self._monitor.start()

    def _worker_loop(self) -> None:
        # The embedded Qdrant store admits one process: only its holder projects. Another
        # pegas-memory process on the same data dir waits here and takes over when it can.
        while not self._stop.is_set():
            if self.settings.vectors_embedded:
                try:
                    self.vectors.get()
                except BackendUnavailable as exc:
                    log.info("not draining the outbox here: %s", exc)
                    self._stop.wait(RETRY_AFTER_SECONDS)
                    continue
            # With the engine host, every process projects; while the host starts, wait for it
            # instead of claiming events only to record an outage and delay them. In short
            # waits: a stop (SIGTERM during the host's start) is seen at once, not after a
            # second that the close spent joining this thread (measured).
            if not self.wait_for_host(1.0, stop=self._stop):
                continue
            self.monitor.tick()  # at start: a slice lost or damaged while we were down
            self.worker("embedded-worker").run(self._stop, idle=self.monitor.tick)

    @property
    def projecting_here(self) -> bool:
        """Whether this process's embedded worker is draining the outbox (it holds the
        embedded vector store, the engine host serves it to every process, or the vector
        slice is a server)."""
        alive = self._thread is not None and self._thread.is_alive()
        s = self.settings
        return alive and (not s.vectors_embedded or s.shares_vectors or self.vectors.ready)

    def stop_worker_thread(self, timeout: float = 30.0) -> None:
        self._stop.set()
        self.monitor.request()  # wakes the self-check thread, which then sees the stop
        if self._thread is not None:
            # The worker may be waiting on its LISTEN for up to the poll interval: a NOTIFY
            # ends that wait now (a close joined it for up to a second, measured at SIGTERM).
            try:
                self.db.notify(OUTBOX_CHANNEL)
            except PegasMemoryError as exc:  # the server is gone: the join below is bounded
                log.debug("could not wake the outbox worker: %s", exc)
        if self._thread is not None:
            self._thread.join(timeout)
            self._thread = None
        if self._monitor is not None:
            self._monitor.join(timeout)
            self._monitor = None

    def close(self) -> None:
        # The worker is a daemon thread and its claims are transactional: a stopping process
        # waits for it only briefly (it may be inside a drain, or opening an engine).
        self.stop_worker_thread(timeout=1.0)
        # The warm-up stops at its next check; one inside a FalkorDB start (seconds under
        # load) is not waited for: `Lazy.close` below makes it close what it opens.
        if self._prewarm is not None:
            self._prewarm.join(PREWARM_JOIN_SECONDS)
        for lazy in (self.vectors, self.graph, self.embedder):
            lazy.close()
