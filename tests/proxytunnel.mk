## The spliced tunnel relay end to end through axgate serve (python3).
proxytunnel_scripts = tests/integration/proxy-tunnel.sh
TESTS += $(proxytunnel_scripts)
EXTRA_DIST += $(proxytunnel_scripts) tests/integration/proxy-tunnel.py
