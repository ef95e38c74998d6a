"""The session widget (anywidget), the data it is sent, HTML export and figure linking.

Compact columns go up front, full entries on request; the front end is TypeScript in
``js/``, bundled into ``prime_nb/static`` by the build backend.

- ``_session_widget``: :class:`SessionWidget` and :func:`show`.
- ``_data``: what the browser is sent (tree columns, kind codes, answers to requests).
- ``_static``: the outputs without JavaScript (text line, HTML summary, SVG of the tree).
- ``_offline``: the first lines saved with the widget's state, for pages without a kernel.
- ``_export``: :func:`export_html`, one self-contained page; ``_export_parts``: what the
  page holds beside the tree; ``_page``: the page's HTML, written top to bottom, and
  :func:`read_export`, which decodes one; ``_pack``: its parts' gzip + base64 stream.
- ``_linking``: :func:`link`, a plotly figure that follows the selection.
- ``_family_widget``, ``_family_data``: :class:`FamilyWidget` and :func:`show_family`, a
  family's sessions as lanes (its own bundle, ``static/family.js``).
"""

from ._export import export_destination, export_html
from ._family_widget import FamilyWidget, show_family
from ._linking import link
from ._page import read_export
from ._session_widget import SessionWidget, show

__all__ = [
    "FamilyWidget",
    "SessionWidget",
    "export_destination",
    "export_html",
    "link",
    "read_export",
    "show",
    "show_family",
]
