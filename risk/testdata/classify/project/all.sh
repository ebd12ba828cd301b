#!/bin/sh
./build.sh && sh clean.sh
