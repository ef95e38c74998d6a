"""The package's names, for type checkers and for ``lazy_loader.attach_stub``: each is
imported from its module on first use (see ``prime_nb``'s package docstring)."""

from . import (
    analysis as analysis,
    corpus as corpus,
    datasets as datasets,
    errors as errors,
    family as family,
    format as format,
    plots as plots,
    session as session,
    widget as widget,
    write as write,
)
from ._version import __version__ as __version__
from .errors import (
    EntryLostError as EntryLostError,
    EntryNotFoundError as EntryNotFoundError,
    InvalidEntryError as InvalidEntryError,
    SessionFormatError as SessionFormatError,
    SessionWriteError as SessionWriteError,
    TornLineWarning as TornLineWarning,
    UpgradeRequiredError as UpgradeRequiredError,
)
from .family import (
    Family as Family,
    load_family as load_family,
)
from .format import (
    Problem as Problem,
    RawEntry as RawEntry,
    iter_entries as iter_entries,
    migrate as migrate,
)
from .redact import redact as redact
from .session import (
    Context as Context,
    Session as Session,
    fork_to_file as fork_to_file,
    list_sessions as list_sessions,
    load as load,
    session_dir as session_dir,
)
from .widget import (
    FamilyWidget as FamilyWidget,
    SessionWidget as SessionWidget,
    export_html as export_html,
    link as link,
    show as show,
    show_family as show_family,
)
from .write import (
    append_branch_summary as append_branch_summary,
    append_compaction as append_compaction,
    append_fork as append_fork,
    append_label as append_label,
    append_message as append_message,
    append_session_name as append_session_name,
    reconcile as reconcile,
    upgrade_file as upgrade_file,
)
