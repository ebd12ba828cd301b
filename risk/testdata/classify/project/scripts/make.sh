#!/bin/sh
echo "building $1"
make "$1"
