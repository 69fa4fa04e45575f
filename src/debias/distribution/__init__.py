"""The package as it is installed: which extra installs each optional package
(:mod:`.extras`) and where the workflow's files are, in a checkout or inside the installed
package (:mod:`.files`)."""
