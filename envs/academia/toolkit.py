"""Academia's tools over the network, answering as the original's toolkit does over its DBLP
graphs: a graph must be loaded first, unknown names and missing edges get its texts."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from coevo.envs.academia.network import Network
from coevo.envs.toolusage.spec import ToolSpec
from coevo.envs.toolusage.toolkit import Toolkit


class AcademiaToolkit(Toolkit):
    def __init__(self, specs: Sequence[ToolSpec], network: Network) -> None:
        super().__init__(specs)
        self.network = network
        self.paper_net = False
        self.author_net = False

    def loadPaperNet(self) -> tuple[bool, Any]:  # noqa: N802 - the original's tool names
        self.paper_net = True
        return True, "PaperNet is loaded."

    def loadAuthorNet(self) -> tuple[bool, Any]:  # noqa: N802
        self.author_net = True
        return True, "AuthorNet is loaded."

    def _missing(self, node: Any, graph: str) -> str | None:
        """The original's answer for a node the graph lacks (None: it has it); a node that
        cannot be a dictionary key fails there with a TypeError, shown as its handler shows it."""
        names: Any = self.network.papers if graph == "PaperNet" else self.network.orgs
        try:
            found = node in names
        except TypeError as exc:
            return f"TypeError({exc})"
        return None if found else f"There is no node named {node} in the {graph}."

    def neighbourCheck(self, graph: Any, node: Any) -> tuple[bool, Any]:  # noqa: N802
        if graph == "PaperNet" and not self.paper_net:
            return False, "Please load the PaperNet first."
        if graph == "AuthorNet" and not self.author_net:
            return False, "Please load the AuthorNet first."
        if graph in ("PaperNet", "AuthorNet"):
            missing = self._missing(node, graph)
            if missing is not None:
                return False, missing
            if graph == "PaperNet":
                return True, list(self.network.citations[node])
            return True, self.network.coauthors(node)
        # another name: the original calls .neighbors on the name itself
        return False, f"AttributeError('{type(graph).__name__}' object has no attribute 'neighbors')"

    def paperNodeCheck(self, node: Any) -> tuple[bool, Any]:  # noqa: N802
        if not self.paper_net:
            return False, "Please load the PaperNet first."
        missing = self._missing(node, "PaperNet")
        if missing is not None:
            return False, missing
        return True, self.network.papers[node].node()

    def authorNodeCheck(self, node: Any) -> tuple[bool, Any]:  # noqa: N802
        if not self.author_net:
            return False, "Please load the AuthorNet first."
        missing = self._missing(node, "AuthorNet")
        if missing is not None:
            return False, missing
        return True, {"name": node, "org": self.network.orgs[node], "papers": self.network.author_papers(node)}

    def authorEdgeCheck(self, node1: Any, node2: Any) -> tuple[bool, Any]:  # noqa: N802
        if not self.author_net:
            return False, "Please load the AuthorNet first."
        for node in (node1, node2):
            missing = self._missing(node, "AuthorNet")
            if missing is not None:
                return False, missing
        shared = self.network.shared_papers(node1, node2)
        if not shared:
            return False, f"There is no edge between {node1} and {node2}."
        return True, {"collaborative_papers": shared}

    def paperEdgeCheck(self, node1: Any, node2: Any) -> tuple[bool, Any]:  # noqa: N802
        if not self.paper_net:
            return False, "Please load the PaperNet first."
        for node in (node1, node2):
            missing = self._missing(node, "PaperNet")
            if missing is not None:
                return False, missing
        if node2 not in self.network.citations[node1]:
            return False, f"There is no edge between {node1} and {node2}."
        return True, {}
