#!/bin/sh
rm -rf dist
